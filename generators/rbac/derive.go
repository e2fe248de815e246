package rbac

import "github.com/ctrlgen/ctrlgen/internal/model"

// Derive returns the rules the project's controllers need, from what the
// generated wiring and the runtime under it do; ctrlgen cannot see what
// Reconcile does through a clientset, and +kubebuilder:rbac markers add
// that. Reads through the listers need nothing more than the informers.
//
//   - list and watch on the controller's kind and each owns= kind: the
//     informers stream the initial state with a watch (WatchList) and list
//     where the server refuses that or the client has it off;
//   - update on <plural>/status, the status write-back (UpdateStatus), and
//     get on the kind, which the write-back reads afresh when it
//     conflicts; patch on <plural>/status alone where status is applied
//     (+ctrlgen:controller:statusApply);
//   - update on the kind, when a finalizer is added and removed (Update);
//   - with adopt=, get on the kind (the owner is read live before it
//     adopts), patch on the owned kind (adoption and release are JSON
//     patches of its ownerReferences), and, for clusters that run the
//     OwnerReferencesPermissionEnforcement admission plugin, delete on it
//     (changing an object's ownerReferences needs the right to delete
//     it) and update on the owner's <plural>/finalizers (a controller
//     reference blocks the owner's deletion, which needs that right);
//   - create and patch on core events: the wiring records Warning events
//     through the manager's recorder, which creates an event and patches
//     it when it recurs;
//   - with webhooks, get, list, watch and update on the mutating and validating
//     webhook configurations: the manager writes its CA bundle into those
//     that call it (the Secret that holds its certificates is the
//     webhook-cert Role's);
//   - with conversion webhooks, get, list, watch and update on
//     CustomResourceDefinitions: the manager writes its CA bundle into
//     the conversion webhook of those that call it.
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
		add(group, k.Plural, "list", "watch")
		if c.StatusWriteBack {
			verb, getsOnConflict := statusWrite(c)
			add(group, k.Plural+"/status", verb)
			if getsOnConflict {
				add(group, k.Plural, "get")
			}
		}
		if c.Finalizer != "" {
			add(group, k.Plural, "update")
		}
		for _, o := range c.Owns {
			if o.Kind == nil {
				continue
			}
			ownedGroup := o.Kind.Version.Group.Name
			add(ownedGroup, o.Kind.Plural, "list", "watch")
			if o.Adopt != nil {
				add(group, k.Plural, "get")
				add(ownedGroup, o.Kind.Plural, "patch", "delete")
				add(group, k.Plural+"/finalizers", "update")
			}
		}
	}
	if len(out) > 0 {
		add("", "events", "create", "patch")
	}
	if len(p.Webhooks) > 0 {
		add("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get", "list", "update", "watch")
		add("admissionregistration.k8s.io", "validatingwebhookconfigurations", "get", "list", "update", "watch")
	}
	if len(p.ConversionKinds()) > 0 {
		add("apiextensions.k8s.io", "customresourcedefinitions", "get", "list", "update", "watch")
	}
	return out
}

// statusWrite is how the wiring writes status back: the verb on
// <plural>/status, and whether a conflict makes it get the object afresh.
// UpdateStatus does both; a server-side apply of status
// (+ctrlgen:controller:statusApply) is a patch that reads nothing.
func statusWrite(c *model.Controller) (verb string, getsOnConflict bool) {
	if c.StatusApply {
		return "patch", false
	}
	return "update", true
}
