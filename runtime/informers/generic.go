package informers

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/listers"
)

// GenericInformer gives access to a shared informer and a lister without
// knowing the resource's type, as ForResource returns it.
type GenericInformer interface {
	Informer() cache.Informer
	Lister() listers.GenericLister
}

// NewGenericInformer returns a GenericInformer over informer, whose lister
// names resource in NotFound errors.
func NewGenericInformer(informer cache.Informer, resource schema.GroupResource) GenericInformer {
	return &genericInformer{informer: informer, resource: resource}
}

type genericInformer struct {
	informer cache.Informer
	resource schema.GroupResource
}

func (g *genericInformer) Informer() cache.Informer { return g.informer }

func (g *genericInformer) Lister() listers.GenericLister {
	return listers.NewGenericLister(g.informer, g.resource)
}
