package rbac

import (
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/model"
)

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
//
// With p.RBACNamespaces, the manager caches those namespaces only
// (runtime/manager's --namespaces), and each rule about a namespaced
// resource is given once per namespace, for a Role there; the rules
// about cluster-scoped resources stay in the ClusterRole.
func Derive(p *model.Project) []*model.RBACRule {
	var out []*model.RBACRule
	add := func(namespaced bool, group, resource string, verbs ...string) {
		if !namespaced || len(p.RBACNamespaces) == 0 {
			out = append(out, &model.RBACRule{Groups: []string{group}, Resources: []string{resource}, Verbs: verbs})
			return
		}
		for _, ns := range p.RBACNamespaces {
			out = append(out, &model.RBACRule{Groups: []string{group}, Resources: []string{resource}, Verbs: verbs, Namespace: ns})
		}
	}
	for _, k := range p.ControllerKinds() {
		c := k.Controller
		group := k.Version.Group.Name
		add(k.Namespaced, group, k.Plural, "list", "watch")
		if c.StatusWriteBack {
			verb, getsOnConflict := statusWrite(c)
			add(k.Namespaced, group, k.Plural+"/status", verb)
			if getsOnConflict {
				add(k.Namespaced, group, k.Plural, "get")
			}
		}
		if c.Finalizer != "" {
			add(k.Namespaced, group, k.Plural, "update")
		}
		for _, o := range c.Owns {
			if o.Kind == nil {
				continue
			}
			ownedGroup := o.Kind.Version.Group.Name
			add(o.Kind.Namespaced, ownedGroup, o.Kind.Plural, "list", "watch")
			if o.Adopt != nil {
				add(k.Namespaced, group, k.Plural, "get")
				add(o.Kind.Namespaced, ownedGroup, o.Kind.Plural, "patch", "delete")
				add(k.Namespaced, group, k.Plural+"/finalizers", "update")
			}
		}
	}
	if len(out) > 0 {
		// Events go to the namespace of the object they are about.
		add(true, "", "events", "create", "patch")
	}
	if len(p.Webhooks) > 0 {
		add(false, "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "get", "list", "update", "watch")
		add(false, "admissionregistration.k8s.io", "validatingwebhookconfigurations", "get", "list", "update", "watch")
	}
	if len(p.ConversionKinds()) > 0 {
		add(false, "apiextensions.k8s.io", "customresourcedefinitions", "get", "list", "update", "watch")
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

// scopeMarkers returns the +kubebuilder:rbac rules, with, when the
// manager is limited to p.RBACNamespaces, each rule for the manager's
// ClusterRole (no namespace=, no roleName=) that is only about resources
// the controllers show to be namespaced (their kinds and owns= kinds,
// with subresources) given once per namespace instead, for the Roles
// there: what Reconcile does to its own and its children's objects is
// done in those namespaces. Rules about anything else stay as written.
func scopeMarkers(p *model.Project) []*model.RBACRule {
	if len(p.RBACNamespaces) == 0 {
		return p.RBACRules
	}
	namespaced := map[string]bool{} // "group/resource"
	for _, k := range p.ControllerKinds() {
		namespaced[k.Version.Group.Name+"/"+k.Plural] = k.Namespaced
		for _, o := range k.Controller.Owns {
			if o.Kind != nil {
				namespaced[o.Kind.Version.Group.Name+"/"+o.Kind.Plural] = o.Kind.Namespaced
			}
		}
	}
	isNamespaced := func(r *model.RBACRule) bool {
		if r.Namespace != "" || r.RoleName != "" || len(r.URLs) > 0 || len(r.Resources) == 0 {
			return false
		}
		for _, g := range r.Groups {
			if g == "core" {
				g = ""
			}
			for _, res := range r.Resources {
				res, _, _ = strings.Cut(res, "/")
				if !namespaced[g+"/"+res] {
					return false
				}
			}
		}
		return len(r.Groups) > 0
	}
	var out []*model.RBACRule
	for _, r := range p.RBACRules {
		if !isNamespaced(r) {
			out = append(out, r)
			continue
		}
		for _, ns := range p.RBACNamespaces {
			scoped := *r
			scoped.Namespace = ns
			out = append(out, &scoped)
		}
	}
	return out
}
