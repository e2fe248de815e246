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

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
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
		go func() { errs <- m.Run(ctx) }()
	case "controller-runtime":
		scheme := runtime.NewScheme()
		if err := crddemov1.AddToScheme(scheme); err != nil {
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
