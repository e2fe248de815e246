package fake

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Owner returns the owner of the tenant called name.
func (c *fakeTenants) Owner(ctx context.Context, name string) (string, error) {
	t, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return t.Owner, nil
}
