package v1

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantExpansion is written by hand, so generated_expansion.go leaves it
// out.
type TenantExpansion interface {
	Owner(ctx context.Context, name string) (string, error)
}

// Owner returns the owner of the tenant called name.
func (c *tenants) Owner(ctx context.Context, name string) (string, error) {
	t, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return t.Owner, nil
}
