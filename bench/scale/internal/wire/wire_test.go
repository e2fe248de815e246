package wire

import (
	"strings"
	"testing"
)

func TestUpdatesCommand(t *testing.T) {
	line := UpdatesCommand(10000)
	if !strings.HasSuffix(line, "\n") {
		t.Fatalf("UpdatesCommand(10000) = %q: not one line", line)
	}
	n, err := ParseUpdatesCommand(strings.TrimSuffix(line, "\n"))
	if err != nil || n != 10000 {
		t.Fatalf("ParseUpdatesCommand(%q) = %d, %v; want 10000", line, n, err)
	}
	for _, bad := range []string{"", "updates", "updates x", "updates 0", "updates -3", "sync 3"} {
		if n, err := ParseUpdatesCommand(bad); err == nil {
			t.Errorf("ParseUpdatesCommand(%q) = %d, no error", bad, n)
		}
	}
}
