package generators

import (
	"github.com/ctrlgen/ctrlgen/generators/admission"
	"github.com/ctrlgen/ctrlgen/generators/applyconfiguration"
	"github.com/ctrlgen/ctrlgen/generators/clientset"
	"github.com/ctrlgen/ctrlgen/generators/controller"
	"github.com/ctrlgen/ctrlgen/generators/conversion"
	"github.com/ctrlgen/ctrlgen/generators/crd"
	"github.com/ctrlgen/ctrlgen/generators/deepcopy"
	"github.com/ctrlgen/ctrlgen/generators/informer"
	"github.com/ctrlgen/ctrlgen/generators/lister"
	"github.com/ctrlgen/ctrlgen/generators/rbac"
	"github.com/ctrlgen/ctrlgen/generators/register"
	"github.com/ctrlgen/ctrlgen/generators/webhook"
)

// All returns the generators ctrlgen runs by default, in order.
func All() []Generator {
	return []Generator{
		deepcopy.Generator{},
		register.Generator{},
		applyconfiguration.Generator{},
		clientset.Generator{},
		lister.Generator{},
		informer.Generator{},
		controller.Generator{},
		admission.Generator{},
		conversion.Generator{},
		crd.Generator{},
		rbac.Generator{},
		webhook.Generator{},
	}
}
