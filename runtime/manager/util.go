package manager

import (
	"strconv"
	"strings"
)

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseFloat32(s string, dst *float32) error {
	f, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return err
	}
	*dst = float32(f)
	return nil
}

// enabled reports whether the controller name is selected by the list, as
// kube-controller-manager reads --controllers: the first "name" or "-name"
// decides; otherwise "*" selects it (every controller registered here is
// on by default, unlike some of kube-controller-manager's).
func enabled(name string, list []string) bool {
	star := false
	for _, c := range list {
		switch c {
		case name:
			return true
		case "-" + name:
			return false
		case "*":
			star = true
		}
	}
	return star
}
