// Command informer is one side of the scale benchmark (bench/scale): it
// starts one informer over all namespaces, ctrlgen's or client-go's, with
// one handler counting adds and updates, and reports on stdout, as JSON
// lines, when it has synced and when the updates the harness announces on
// stdin have been delivered (the protocol is bench/scale/internal/wire's).
//
//	informer -impl ctrlgen|client-go|floor|ctrlgen-dropin|client-go-dropin -kind configmaps|mydemos -kubeconfig FILE
//	         [-http1] [-cpuprofile FILE] [-memprofile FILE]
//
// The sides ctrlgen-dropin and client-go-dropin are the same factories
// as a drop-in user writes them (dropin.go): a clientset without
// ContentType, a cache.ResourceEventHandlerFuncs, factory.Start and
// factory.WaitForCacheSync as "synced".
//
// ctrlgen's informers are what users get: for ConfigMaps the shipped
// factory github.com/ctrlgen/ctrlgen/runtime/kube/informers, for Mydemos
// examples/mydemo's generated one. client-go's are v0.37.2's with its
// defaults (WatchList on): k8s.io/client-go/informers for ConfigMaps and,
// for Mydemos, the informer informer-gen v0.37.2 generates, written out
// (clientgo.go). Both sides talk through the same clientsets: client-go's
// kubernetes one speaking protobuf for ConfigMaps, the example's generated
// one speaking JSON for Mydemos, which ctrlgen's side uses as generated
// (decoding with its generated JSON decoders) and client-go's with the
// serializer client-gen's clients have (clientgen.MydemoClient).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ctrlgen/ctrlgen/bench/internal/clientgen"
	"github.com/ctrlgen/ctrlgen/bench/internal/procstat"
	"github.com/ctrlgen/ctrlgen/bench/scale/internal/wire"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		impl       = flag.String("impl", "", "ctrlgen, client-go or floor (floor.go); ctrlgen-dropin or client-go-dropin (dropin.go)")
		kind       = flag.String("kind", "", "configmaps or mydemos")
		kubeconfig = flag.String("kubeconfig", "", "kubeconfig of the cluster")
		cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the span from starting the informer to synced (the drop-in sides: to every add delivered) to this file")
		memProfile = flag.String("memprofile", "", "write heap profiles to this file after sync and to FILE.updated after the last update phase (both after a GC)")
		http1      = flag.Bool("http1", false, "the clientset speaks HTTP/1.1 (rest.Config.NextProtos), not HTTP/2")
		updProfile = flag.String("updates-cpuprofile", "", "write a CPU profile of the update phases (from the first arming to the end of the last phase) to this file")
	)
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if *kubeconfig == "" {
		return errors.New("-kubeconfig is required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	if *http1 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	var (
		c        counter
		informer runner
		drop     *dropin
		reg      cache.ResourceEventHandlerRegistration
	)
	if side, ok := strings.CutSuffix(*impl, dropinSuffix); ok {
		// As a drop-in user writes it (dropin.go).
		if drop, err = newDropin(cfg, side, *kind); err != nil {
			return err
		}
		informer = drop.informer
		reg, err = drop.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    c.add,
			UpdateFunc: c.OnUpdate,
			DeleteFunc: c.OnDelete,
		})
	} else {
		if informer, err = newInformer(cfg, *impl, *kind); err != nil {
			return err
		}
		reg, err = informer.AddEventHandler(&c)
	}
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	cpu0, start := cpuNow(), time.Now()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	if drop != nil {
		// The factory runs the informer; its WaitForCacheSync returns once
		// the informer has synced, not waiting for the handler.
		drop.start(ctx.Done())
		if !drop.waitForCacheSync(ctx.Done()) {
			return errors.New("WaitForCacheSync: not synced")
		}
	} else {
		wg.Go(func() { informer.RunWithContext(ctx) })
		// The registration is synced once the informer is and every add
		// of the initial list has reached the handler.
		<-reg.HasSyncedChecker().Done()
	}
	synced := wire.Report{
		Phase:        wire.PhaseSynced,
		SyncNanos:    int64(time.Since(start)),
		SyncCPUNanos: int64(cpuNow() - cpu0),
	}
	if drop != nil {
		// Every add of the initial list delivered, for the count below.
		<-reg.HasSyncedChecker().Done()
		synced.DeliveredNanos, synced.DeliveredCPUNanos = int64(time.Since(start)), int64(cpuNow()-cpu0)
	}
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	mem, err := procstat.Mem("self")
	if err != nil {
		return err
	}
	synced.PeakRSS = mem.HWM
	if f, ok := informer.(*floor); ok {
		synced.Objects = f.Objects()
	} else {
		synced.Objects = len(informer.GetStore().ListKeys())
	}
	synced.Adds = int(c.adds.Load())
	if synced.Adds != synced.Objects {
		return fmt.Errorf("synced with %d objects in the store but %d adds delivered", synced.Objects, synced.Adds)
	}
	if synced.RSS, synced.Heap, err = settledMemory(); err != nil {
		return err
	}
	if err := writeHeapProfile(*memProfile); err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(synced); err != nil {
		return err
	}

	in := bufio.NewScanner(os.Stdin)
	updated := false
	if *updProfile != "" {
		f, err := os.Create(*updProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for in.Scan() {
		n, err := wire.ParseUpdatesCommand(in.Text())
		if err != nil {
			return err
		}
		done := c.expectUpdates(n)
		cpuArmed := cpuNow()
		if err := out.Encode(wire.Report{Phase: wire.PhaseArmed}); err != nil {
			return err
		}
		d := <-done
		r := wire.Report{Phase: wire.PhaseUpdated, Updates: n, LastDeliveryUnixNano: d.at.UnixNano(), CPUNanos: int64(d.cpu - cpuArmed)}
		if r.RSS, r.Heap, err = settledMemory(); err != nil {
			return err
		}
		if err := out.Encode(r); err != nil {
			return err
		}
		updated = true
	}
	if err := in.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if updated && *memProfile != "" {
		return writeHeapProfile(*memProfile + ".updated")
	}
	return nil
}

// runner is the part of client-go's SharedIndexInformer the process uses.
type runner interface {
	AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error)
	RunWithContext(context.Context)
	GetStore() cache.Store
}

// newInformer builds impl's informer for kind, the way its users get it.
func newInformer(cfg *rest.Config, impl, kind string) (runner, error) {
	switch kind {
	case "configmaps":
		// The benchmark's clientset asks for protobuf in its config; the
		// typed clients would by themselves (dropin.go).
		cfg = rest.CopyConfig(cfg)
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		switch impl {
		case "ctrlgen":
			return ctrlgenConfigMaps(client), nil
		case "client-go":
			return clientGoConfigMaps(client), nil
		case "floor":
			return floorConfigMaps(client), nil
		}
	case "mydemos":
		switch impl {
		case "ctrlgen":
			client, err := versioned.NewForConfig(cfg)
			if err != nil {
				return nil, err
			}
			return ctrlgenMydemos(client), nil
		case "client-go":
			client, err := clientgen.MydemoClient(cfg, "")
			if err != nil {
				return nil, err
			}
			return clientGoMydemos(client), nil
		case "floor":
			client, err := versioned.NewForConfig(cfg)
			if err != nil {
				return nil, err
			}
			return floorMydemos(client), nil
		}
	default:
		return nil, fmt.Errorf("-kind %q: want configmaps or mydemos", kind)
	}
	return nil, fmt.Errorf("-impl %q: want ctrlgen, client-go or floor", impl)
}

// dropinSuffix on -impl runs side NAME as a drop-in user writes it
// (dropin.go): ctrlgen-dropin and client-go-dropin.
const dropinSuffix = "-dropin"

// newDropin builds side's factory and informer for kind as a drop-in user
// does, on a clientset of cfg as it is.
func newDropin(cfg *rest.Config, side, kind string) (*dropin, error) {
	switch kind {
	case "configmaps":
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		switch side {
		case "ctrlgen":
			return ctrlgenDropinConfigMaps(client), nil
		case "client-go":
			return clientGoDropinConfigMaps(client), nil
		}
	case "mydemos":
		switch side {
		case "ctrlgen":
			client, err := versioned.NewForConfig(cfg)
			if err != nil {
				return nil, err
			}
			return ctrlgenDropinMydemos(client), nil
		case "client-go":
			client, err := clientgen.MydemoClient(cfg, "")
			if err != nil {
				return nil, err
			}
			return clientGoDropinMydemos(client), nil
		}
	default:
		return nil, fmt.Errorf("-kind %q: want configmaps or mydemos", kind)
	}
	return nil, fmt.Errorf("-impl %q: want ctrlgen%s or client-go%s", side+dropinSuffix, dropinSuffix, dropinSuffix)
}

// counter is the handler: it counts adds, and updates that change the
// resourceVersion, and tells expectUpdates's caller when the n-th update
// since arrived.
type counter struct {
	adds    atomic.Int64
	updates atomic.Int64
	target  atomic.Int64
	done    chan delivered
}

type delivered struct {
	at  time.Time
	cpu time.Duration
}

// expectUpdates resets the update count and returns a channel that gets
// the time and the process's CPU time at the n-th update from now on. The
// previous phase must be complete: every update the harness made then was
// delivered.
func (c *counter) expectUpdates(n int) <-chan delivered {
	c.done = make(chan delivered, 1)
	c.updates.Store(0)
	c.target.Store(int64(n))
	return c.done
}

func (c *counter) OnAdd(obj any, isInInitialList bool) { c.adds.Add(1) }

// add is the drop-in sides' AddFunc.
func (c *counter) add(obj any) { c.adds.Add(1) }

func (c *counter) OnUpdate(oldObj, newObj any) {
	o, n := oldObj.(interface{ GetResourceVersion() string }), newObj.(interface{ GetResourceVersion() string })
	if o.GetResourceVersion() == n.GetResourceVersion() {
		return
	}
	if c.updates.Add(1) == c.target.Load() {
		c.done <- delivered{at: time.Now(), cpu: cpuNow()}
	}
}

func (c *counter) OnDelete(obj any) {}

// cpuNow is the process's user and system CPU time so far.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err) // RUSAGE_SELF with a valid pointer cannot fail
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// settledMemory collects garbage, returns free memory to the OS and reads
// VmRSS and the live heap: the memory a process settles at.
func settledMemory() (rss, heap int64, err error) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mem, err := procstat.Mem("self")
	return mem.RSS, int64(ms.HeapAlloc), err
}

func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
