package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	mydemoscheme "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
)

// floor is the benchmark's floor: the watches ctrlgen's informer opens, on
// the same clientset's REST client, read and split into events, with
// nothing decoded and nothing cached. What it costs per update is what
// any informer pays for the wire (the connection, TLS, HTTP/2, waking up
// for each event) before it decodes a byte.
//
// It streams the initial list (sendInitialEvents) and counts its events
// as adds up to the bookmark that ends it, then leaves that watch, as
// ctrlgen's informer does, and watches plainly again, counting MODIFIED
// events as updates. Unlike the informer, which watches from the
// bookmark's resourceVersion, it lists one object to learn the current
// one, so as not to decode the bookmark: one small request more in its
// sync, and events between the bookmark and that list would be missed,
// which the harness, updating only after synced, does not make.
type floor struct {
	client   rest.Interface
	resource string
	protobuf bool
	params   runtime.ParameterCodec
	// resourceVersion lists one object to learn the current one.
	resourceVersion func(context.Context) (string, error)

	handler cache.ResourceEventHandler
	objects int
	synced  chan struct{}
}

func (f *floor) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	f.handler = h
	return f, nil
}

func (f *floor) HasSynced() bool {
	select {
	case <-f.synced:
		return true
	default:
		return false
	}
}

func (f *floor) HasSyncedChecker() cache.DoneChecker { return f }
func (f *floor) Name() string                        { return "floor" }
func (f *floor) Done() <-chan struct{}               { return f.synced }

// GetStore is empty: the floor caches nothing (Objects counts).
func (f *floor) GetStore() cache.Store { return cache.NewStore(cache.MetaNamespaceKeyFunc) }

// Objects is how many events the initial list had.
func (f *floor) Objects() int { return f.objects }

func (f *floor) RunWithContext(ctx context.Context) {
	if err := f.run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "informer: floor:", err)
		os.Exit(1)
	}
}

// Each update is delivered as the same pair: the handler counts updates
// that change the resourceVersion.
var (
	floorOld = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "1"}}
	floorNew = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "2"}}
)

func (f *floor) run(ctx context.Context) error {
	events, err := f.watch(ctx, metav1.ListOptions{
		SendInitialEvents:    ptr.To(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		return err
	}
initial:
	for {
		e, err := events.next()
		if err != nil {
			return fmt.Errorf("the initial events: %w", err)
		}
		switch events.eventType(e) {
		case watch.Bookmark:
			if bytes.Contains(e, []byte(metav1.InitialEventsAnnotationKey)) {
				break initial
			}
			continue
		case watch.Error:
			return fmt.Errorf("the initial events: an error event: %q", e[:min(len(e), 512)])
		}
		f.objects++
		f.handler.OnAdd(floorNew, true)
	}
	events.Close()
	rv, err := f.resourceVersion(ctx)
	if err != nil {
		return err
	}
	events, err = f.watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		return err
	}
	defer events.Close()
	close(f.synced)
	for {
		e, err := events.next()
		if err != nil {
			return err
		}
		switch events.eventType(e) {
		case watch.Modified:
			f.handler.OnUpdate(floorOld, floorNew)
		case watch.Error:
			return fmt.Errorf("an error event: %q", e[:min(len(e), 512)])
		}
	}
}

// watch sends a watch request as ctrlgen's informer does
// (cache.RESTWatchStream), without timeoutSeconds: the server's default
// (30 to 60 minutes) outlasts a run, and the floor does not watch again.
func (f *floor) watch(ctx context.Context, opts metav1.ListOptions) (*floorEvents, error) {
	opts.Watch = true
	body, err := f.client.Get().
		UseProtobufAsDefaultIfPreferred(f.protobuf).
		Resource(f.resource).
		VersionedParams(&opts, f.params).
		Throttle(nil).
		Stream(ctx)
	if err != nil {
		return nil, err
	}
	return &floorEvents{ReadCloser: body, r: bufio.NewReaderSize(body, 64<<10), protobuf: f.protobuf}, nil
}

// floorEvents splits a watch response into its events: length-prefixed
// protobuf frames, or JSON objects one per line, as kube-apiserver writes
// them.
type floorEvents struct {
	io.ReadCloser
	r        *bufio.Reader
	protobuf bool
	buf      []byte
}

func (e *floorEvents) next() ([]byte, error) {
	if e.protobuf {
		var n [4]byte
		if _, err := io.ReadFull(e.r, n[:]); err != nil {
			return nil, err
		}
		size := int(binary.BigEndian.Uint32(n[:]))
		if size > 16<<20 {
			return nil, fmt.Errorf("a frame of %d bytes", size)
		}
		if cap(e.buf) < size {
			e.buf = make([]byte, size)
		}
		e.buf = e.buf[:size]
		_, err := io.ReadFull(e.r, e.buf)
		return e.buf, err
	}
	e.buf = e.buf[:0]
	for {
		line, err := e.r.ReadSlice('\n')
		e.buf = append(e.buf, line...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return e.buf, err
		}
	}
}

// eventType reads an event's type, which both encodings put first: the
// protobuf WatchEvent's field 1 a few bytes into the frame, JSON's
// {"type":...} key. Anything else is "".
func (e *floorEvents) eventType(event []byte) watch.EventType {
	head := event[:min(len(event), 64)]
	for _, t := range []watch.EventType{watch.Modified, watch.Added, watch.Deleted, watch.Bookmark, watch.Error} {
		if bytes.Contains(head, []byte(t)) {
			return t
		}
	}
	return ""
}

// floorConfigMaps is the floor under ctrlgen's ConfigMap informer, on the
// same protobuf clientset.
func floorConfigMaps(client kubernetes.Interface) runner {
	return newFloor(client.CoreV1().RESTClient(), "configmaps", true, kubescheme.ParameterCodec,
		currentResourceVersion(client.CoreV1().ConfigMaps(metav1.NamespaceAll).List))
}

// floorMydemos is the floor under ctrlgen's Mydemo informer, on the same
// generated clientset.
func floorMydemos(client versioned.Interface) runner {
	return newFloor(client.CrddemoV1().RESTClient(), "mydemos", false, mydemoscheme.ParameterCodec,
		currentResourceVersion(client.CrddemoV1().Mydemos(metav1.NamespaceAll).List))
}

func newFloor(client rest.Interface, resource string, protobuf bool, params runtime.ParameterCodec, resourceVersion func(context.Context) (string, error)) *floor {
	return &floor{client: client, resource: resource, protobuf: protobuf, params: params, resourceVersion: resourceVersion, synced: make(chan struct{})}
}

// currentResourceVersion lists one object with a typed client's List to
// learn the current resourceVersion.
func currentResourceVersion[L metav1.ListInterface](list func(context.Context, metav1.ListOptions) (L, error)) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		l, err := list(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return "", err
		}
		return l.GetResourceVersion(), nil
	}
}
