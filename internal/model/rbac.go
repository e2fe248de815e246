package model

import "go/token"

// RBACRule is a permission the manager needs, as a "+kubebuilder:rbac"
// marker states it (controller-tools' rbac.Rule): on resources of API
// groups, or on non-resource URLs. The rbac generator derives more from
// the controllers.
type RBACRule struct {
	Groups, Resources, ResourceNames, Verbs, URLs []string
	// Namespace puts the rule in a Role of that namespace; empty: the
	// ClusterRole.
	Namespace string
	// RoleName names the role; empty: the manager's role.
	RoleName string
	// Pos is the marker's position.
	Pos token.Position
}
