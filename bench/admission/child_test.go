package admission

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	crconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	crddemov2 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v2"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/webhooks"
	mydemowebhook "github.com/ctrlgen/ctrlgen/examples/mydemo/webhooks/mydemo"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// runChild serves impl's webhooks until SIGTERM, saying "serving" on
// stdout once it accepts connections.
func runChild(impl string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if file := os.Getenv(childCPUProfile); file != "" {
		f, err := os.Create(file + "." + impl)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	addr, certDir := os.Getenv(childAddr), os.Getenv(childCertDir)
	errs := make(chan error, 1)
	switch impl {
	case "ctrlgen":
		o := manager.DefaultOptions()
		o.Kubeconfig, o.LeaderElect = os.Getenv(childKubeconfig), false
		o.MetricsAddr, o.HealthAddr = "", ""
		o.WebhookAddr, o.WebhookCertDir = addr, certDir
		m := manager.New(o)
		mydemowebhook.Register(m)
		webhooks.RegisterConversion(m)
		go func() { errs <- m.Run(ctx) }()
	case "controller-runtime":
		scheme := runtime.NewScheme()
		if err := crddemov1.AddToScheme(scheme); err != nil {
			return err
		}
		if err := crddemov2.AddToScheme(scheme); err != nil {
			return err
		}
		converters := crconversion.NewRegistry()
		if err := converters.RegisterConverter(crddemov1.SchemeGroupVersion.WithKind("Mydemo").GroupKind(), mydemoConverter{}); err != nil {
			return err
		}
		host, portText, err := net.SplitHostPort(addr)
		if err != nil {
			return err
		}
		port, err := strconv.Atoi(portText)
		if err != nil {
			return err
		}
		ctrllog.SetLogger(logr.Discard())
		// HTTP/1.1 only, as kubebuilder's main sets it up by default
		// (--enable-http2=false), and as ctrlgen's manager serves.
		http1 := func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }
		s := crwebhook.NewServer(crwebhook.Options{Host: host, Port: port, CertDir: certDir, TLSOpts: []func(*tls.Config){http1}})
		s.Register(mydemowebhook.DefaultingPath, cradmission.WithDefaulter[*crddemov1.Mydemo](scheme, &mydemowebhook.Defaulter{}))
		s.Register(mydemowebhook.ValidationPath, cradmission.WithValidator[*crddemov1.Mydemo](scheme, validator{&mydemowebhook.Validator{}}))
		s.Register(manager.ConversionPath, crconversion.NewWebhookHandler(scheme, converters))
		go func() { errs <- s.Start(ctx) }()
	default:
		return fmt.Errorf("unknown implementation %q", impl)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		if c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}); err == nil {
			c.Close()
			break
		}
		select {
		case err := <-errs:
			return fmt.Errorf("stopped before serving: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not serving on %s after a minute", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("serving")
	return <-errs
}

// validator is the example's Validator with controller-runtime's
// Warnings type.
type validator struct{ v *mydemowebhook.Validator }

func (a validator) ValidateCreate(ctx context.Context, obj *crddemov1.Mydemo) (cradmission.Warnings, error) {
	w, err := a.v.ValidateCreate(ctx, obj)
	return cradmission.Warnings(w), err
}

func (a validator) ValidateUpdate(ctx context.Context, old, obj *crddemov1.Mydemo) (cradmission.Warnings, error) {
	w, err := a.v.ValidateUpdate(ctx, old, obj)
	return cradmission.Warnings(w), err
}

func (a validator) ValidateDelete(ctx context.Context, obj *crddemov1.Mydemo) (cradmission.Warnings, error) {
	w, err := a.v.ValidateDelete(ctx, obj)
	return cradmission.Warnings(w), err
}

// mydemoConverter is controller-runtime's Converter for Mydemos, calling
// the conversions ctrlgen generated, which ctrlgen's side calls too: the
// API types implement runtime/conversion's Hub and Convertible, not
// controller-runtime's, whose method signatures name its own interfaces.
type mydemoConverter struct{}

func (mydemoConverter) ConvertObject(_ context.Context, src, dst runtime.Object) error {
	switch s := src.(type) {
	case *crddemov2.Mydemo:
		return s.ConvertTo(dst.(*crddemov1.Mydemo))
	case *crddemov1.Mydemo:
		return dst.(*crddemov2.Mydemo).ConvertFrom(s)
	}
	return fmt.Errorf("cannot convert %T", src)
}
