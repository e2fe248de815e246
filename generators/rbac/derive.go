package rbac

import "github.com/ctrlgen/ctrlgen/model"

// Derive returns the rules the project's controllers need, from what the
// generated wiring and the runtime under it do (ctrlgen cannot see what
// Reconcile writes; +kubebuilder:rbac markers add that):
//
//   - get, list and watch on the controller's kind and each owns= kind:
//     the informers list and watch them, the wiring gets the kind when a
//     status write conflicts and before adopting, and Reconcile reads its
//     children;
//   - update on <plural>/status, the status write-back (UpdateStatus);
//   - update on the kind, when a finalizer is added and removed (Update);
//   - with adopt=, patch on the owned kind (adoption and release are JSON
//     patches of its ownerReferences), and, for clusters that run the
//     OwnerReferencesPermissionEnforcement admission plugin, delete on it
//     (changing an object's ownerReferences needs the right to delete
//     it) and update on the owner's <plural>/finalizers (a controller
//     reference blocks owner deletion, which needs that right on the
//     owner);
//   - create and patch on core events: the wiring records Warning events
//     through the manager's recorder, which creates an event and patches
//     it when it recurs.
//
// Expectations need nothing more.
func Derive(p *model.Project) []*model.RBACRule {
	var out []*model.RBACRule
	add := func(group, resource string, verbs ...string) {
		out = append(out, &model.RBACRule{Groups: []string{group}, Resources: []string{resource}, Verbs: verbs})
	}
	for _, k := range p.ControllerKinds() {
		c := k.Controller
		group := k.Version.Group.Name
		add(group, k.Plural, "get", "list", "watch")
		for _, o := range c.Owns {
			if o.Kind == nil {
				continue
			}
			ownedGroup := o.Kind.Version.Group.Name
			add(ownedGroup, o.Kind.Plural, "get", "list", "watch")
			if o.Adopt != nil {
				add(ownedGroup, o.Kind.Plural, "patch", "delete")
				add(group, k.Plural+"/finalizers", "update")
			}
		}
		if c.StatusWriteBack {
			add(group, k.Plural+"/status", "update")
		}
		if c.Finalizer != "" {
			add(group, k.Plural, "update")
		}
	}
	if len(out) > 0 {
		add("", "events", "create", "patch")
	}
	return out
}
