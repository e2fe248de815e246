package gen

// Needs are what a generator asks of a run, so that the run prepares
// only what its generators use.
type Needs struct {
	// DeepCopies is the deep-copy model (model.Package.DeepCopy), whose
	// building loads every package the inputs import.
	DeepCopies bool
	// ApplyConfigurationTypes are the types the apply configurations
	// cover (model.Project.ApplyConfigurationTypes).
	ApplyConfigurationTypes bool
	// CRDs are the CustomResourceDefinitions built from the API types
	// (model.Project.CRDs) and the directory they go to (CRDDir).
	CRDs bool
	// RBACDir is the directory the manager's RBAC manifests go to.
	RBACDir bool
	// WebhookDir is the directory the webhook manifests go to.
	WebhookDir bool
	// OnRequest generators run by default only when the directory they
	// write to is given (--crd-dir, --rbac-dir): a code-generator
	// project has no config/ for manifests, and API packages
	// controller-gen would refuse must keep generating.
	OnRequest bool
}

// And is what two generators need together. OnRequest is each
// generator's own, and not carried over.
func (n Needs) And(o Needs) Needs {
	return Needs{
		DeepCopies:              n.DeepCopies || o.DeepCopies,
		ApplyConfigurationTypes: n.ApplyConfigurationTypes || o.ApplyConfigurationTypes,
		CRDs:                    n.CRDs || o.CRDs,
		RBACDir:                 n.RBACDir || o.RBACDir,
		WebhookDir:              n.WebhookDir || o.WebhookDir,
	}
}
