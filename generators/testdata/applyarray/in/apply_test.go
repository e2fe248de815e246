package applyarray_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	blobv1 "example.com/applyarray/apis/blob/v1"
	applyblobv1 "example.com/applyarray/generated/applyconfiguration/blob/v1"
	"example.com/applyarray/generated/clientset/versioned/fake"
)

// TestApplyArrayField applies, updates and applies again an object with
// fixed-size array fields on the fake clientset: structured-merge-diff
// cannot reflect over arrays, and the fake must not panic on them.
func TestApplyArrayField(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(&blobv1.Blob{
		ObjectMeta: metav1.ObjectMeta{Name: "seed", Namespace: "ns"},
		Spec:       blobv1.BlobSpec{Checksum: [4]byte{9, 9, 9, 9}},
	})
	blobs := cs.BlobV1().Blobs("ns")
	ac := applyblobv1.Blob("b", "ns").WithSpec(applyblobv1.BlobSpec().WithChecksum([4]byte{1, 2, 3, 4}).WithSize(10))
	got, err := blobs.Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Checksum != [4]byte{1, 2, 3, 4} || got.Spec.Size != 10 {
		t.Fatalf("applied spec %+v", got.Spec)
	}
	got.Status.Seen = [2]string{"x", "y"}
	if got, err = blobs.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got.Status.Seen != [2]string{"x", "y"} {
		t.Fatalf("status %+v", got.Status)
	}
	// A second apply by alice, with fewer fields, drops her size.
	got, err = blobs.Apply(ctx, applyblobv1.Blob("b", "ns").WithSpec(applyblobv1.BlobSpec().WithChecksum([4]byte{5, 6, 7, 8})), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Checksum != [4]byte{5, 6, 7, 8} || got.Spec.Size != 0 || got.Status.Seen != [2]string{"x", "y"} {
		t.Fatalf("reapplied %+v", got)
	}
	stored, err := blobs.Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Spec.Checksum != [4]byte{5, 6, 7, 8} || len(stored.ManagedFields) == 0 {
		t.Fatalf("stored %+v", stored)
	}
	// The seed, added as a typed object, is applied over too.
	got, err = blobs.Apply(ctx, applyblobv1.Blob("seed", "ns").WithSpec(applyblobv1.BlobSpec().WithSize(1)), metav1.ApplyOptions{FieldManager: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Checksum != [4]byte{9, 9, 9, 9} || got.Spec.Size != 1 {
		t.Fatalf("seed %+v", got.Spec)
	}
}
