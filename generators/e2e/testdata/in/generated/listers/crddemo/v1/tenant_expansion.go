package v1

import (
	"k8s.io/apimachinery/pkg/labels"

	crddemov1 "example.com/demo/apis/crddemo/v1"
)

// TenantListerExpansion is written by hand, so expansion_generated.go
// leaves it out.
type TenantListerExpansion interface {
	OwnedBy(owner string) ([]*crddemov1.Tenant, error)
}

// OwnedBy returns the cached tenants of owner.
func (s *tenantLister) OwnedBy(owner string) ([]*crddemov1.Tenant, error) {
	all, err := s.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*crddemov1.Tenant
	for _, t := range all {
		if t.Owner == owner {
			out = append(out, t)
		}
	}
	return out, nil
}
