package admission_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen"
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/testmod"
)

// module returns a generated copy of the golden case's input and the
// config that generated it.
func module(t *testing.T) (string, ctrlgen.Config) {
	t.Helper()
	dir := testmod.New(t, "../testdata/webhook/in", "example.com/webhook")
	cfg := ctrlgen.Config{Dir: dir, Patterns: []string{"./apis/..."}, OutputDir: "generated", Stderr: &bytes.Buffer{}}
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

func TestWiringIsRewrittenAndTheUserFileKept(t *testing.T) {
	dir, cfg := module(t)
	order := filepath.Join(dir, "webhooks/order")
	wiringPath, userPath := filepath.Join(order, "zz_generated.webhook.go"), filepath.Join(order, "webhook.go")
	if !strings.HasPrefix(testmod.Read(t, wiringPath), gen.Header+"\n") {
		t.Error("the wiring has no generated header")
	}
	user := testmod.Read(t, userPath)
	if strings.Contains(user, "DO NOT EDIT") || !strings.Contains(user, "func (d *Defaulter) Default(") || !strings.Contains(user, "func (v *Validator) ValidateDelete(") {
		t.Fatalf("user file:\n%s", user)
	}
	testmod.Replace(t, userPath, "func (d *Defaulter) Default(ctx context.Context, obj *shopv1.Order) error {\n\treturn nil",
		"func (d *Defaulter) Default(ctx context.Context, obj *shopv1.Order) error {\n\tobj.Spec.Quantity = max(obj.Spec.Quantity, 1)\n\treturn nil")
	edited := testmod.Read(t, userPath)
	os.Remove(wiringPath)
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Read(t, userPath) != edited {
		t.Error("a run changed the user's file")
	}
	if !testmod.Exists(wiringPath) {
		t.Error("the removed wiring did not come back")
	}

	// Defaulter and Validator moved to another file: webhook.go is not
	// written again.
	testmod.Write(t, filepath.Join(order, "hooks.go"), []byte(strings.Replace(edited, "package order", "package order // moved", 1)))
	os.Remove(userPath)
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Exists(userPath) {
		t.Error("webhook.go written again next to the user's own Defaulter")
	}
}

func TestWebhookMarkerRemovedRemovesOnlyTheWiring(t *testing.T) {
	dir, cfg := module(t)
	testmod.Replace(t, filepath.Join(dir, "apis/shop/v1/types.go"), "// +ctrlgen:webhook:validation\n", "")
	if err := ctrlgen.Run(cfg); err != nil {
		t.Fatal(err)
	}
	if testmod.Exists(filepath.Join(dir, "webhooks/receipt/zz_generated.webhook.go")) {
		t.Error("the wiring of a kind without +ctrlgen:webhook is still there")
	}
	if !testmod.Exists(filepath.Join(dir, "webhooks/receipt/webhook.go")) {
		t.Error("the user's file was removed")
	}
	if !testmod.Exists(filepath.Join(dir, "webhooks/order/zz_generated.webhook.go")) {
		t.Error("the other kind's wiring was removed")
	}
}

func TestBadWebhookMarkersFailAtTheirLine(t *testing.T) {
	for _, tc := range []struct{ marker, says string }{
		{"// +ctrlgen:webhook:defaulting,validaton", "did you mean validation?"},
		{"// +ctrlgen:webhook:conversion", "Receipt has no other version in this run to convert to"},
	} {
		t.Run(tc.marker, func(t *testing.T) {
			dir, cfg := module(t)
			testmod.Replace(t, filepath.Join(dir, "apis/shop/v1/types.go"), "// +ctrlgen:webhook:validation", tc.marker)
			err := ctrlgen.Run(cfg)
			if err == nil || !strings.Contains(err.Error(), "apis/shop/v1/types.go:35: error: ") || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error = %v, want types.go:35 saying %q", err, tc.says)
			}
		})
	}
}
