package ctlwire

import (
	"strings"
	"testing"
)

func TestCreatedRoundTrips(t *testing.T) {
	want := Created{Namespace: "bench-ctrlgen-x1", Index: 4999, UID: "0b6c-11", ResourceVersion: "12345", Generation: 1}
	got, ok, err := ParseCreated(strings.TrimSuffix(want.Line(), "\n"))
	if err != nil || !ok || got != want {
		t.Fatalf("ParseCreated(%q) = %+v, %v, %v; want %+v", want.Line(), got, ok, err, want)
	}
	if _, ok, _ := ParseCreated(CommandStats); ok {
		t.Error("stats parsed as a created line")
	}
	if _, _, err := ParseCreated("created ns x"); err == nil {
		t.Error("a malformed created line parsed")
	}
}
