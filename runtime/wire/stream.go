// Package wire reads an apiserver's watch responses. RESTWatchStream
// sends the request a typed client's Watch sends, and its Stream decodes
// the response body, length-prefixed protobuf or concatenated JSON, event
// by event in the caller's goroutine, into the objects client-go's watch
// would give, with client-go's errors. A Stream is what runtime/cache's
// Reflector reads as an EventStream: the cache itself knows nothing of
// HTTP. JSONFramer splits JSON watch responses the same way for
// client-go's own watches.
package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"
)

// RESTResource is what a typed client's Watch puts into its request: the
// client of its group version, the namespace (empty for all namespaces or
// a cluster-scoped resource), the resource, whether the client prefers
// protobuf, and its clientset's scheme (ParameterCodec, and
// Codecs.WithoutConversion() as Serializer, which the typed clients
// decode with).
type RESTResource struct {
	Client          rest.Interface
	Namespace       string
	Resource        string
	PrefersProtobuf bool
	ParameterCodec  runtime.ParameterCodec
	Serializer      runtime.NegotiatedSerializer
}

// RESTWatchStream returns a function that starts watches: it sends the
// request a typed client's Watch sends (gentype's, with tweak applied to
// the options first) and reads the response body as a Stream: each event
// is decoded by whoever calls Next, frame by frame, without client-go's
// StreamWatcher goroutine and its channel. The watch event's envelope is
// read in place; its object is decoded by the decoder the client
// negotiates for the response's media type (protobuf or JSON), so the
// objects are those the typed client's Watch gives.
//
// It returns nil, for the caller to watch with the typed client, when r
// has no client or client-go's CBOR feature gates are on, whose encoding
// it does not read.
func RESTWatchStream[T runtime.Object](r RESTResource, tweak func(*metav1.ListOptions)) func(context.Context, metav1.ListOptions) (*Stream[T], error) {
	if r.Client == nil || r.Serializer == nil || r.ParameterCodec == nil {
		return nil
	}
	if rc, ok := r.Client.(*rest.RESTClient); ok && rc == nil {
		return nil
	}
	if clientfeatures.FeatureGates().Enabled(clientfeatures.ClientsAllowCBOR) {
		return nil
	}
	return func(ctx context.Context, opts metav1.ListOptions) (*Stream[T], error) {
		if tweak != nil {
			tweak(&opts)
		}
		var timeout time.Duration
		if opts.TimeoutSeconds != nil {
			timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
		}
		opts.Watch = true
		body, err := r.Client.Get().
			UseProtobufAsDefaultIfPreferred(r.PrefersProtobuf).
			NamespaceIfScoped(r.Namespace, r.Namespace != "").
			Resource(r.Resource).
			VersionedParams(&opts, r.ParameterCodec).
			Timeout(timeout).
			Throttle(nil). // as client-go's Watch, which no rate limiter delays
			Stream(ctx)
		if err != nil {
			return nil, err
		}
		return newStream[T](ctx, body, r.Serializer), nil
	}
}

// Stream decodes a watch response body: length-prefixed protobuf frames
// or concatenated JSON objects, told apart by the first byte. It is a
// runtime/cache EventStream, left after a streamed list's initial events
// (cache.LeftAfterInitialEvents).
type Stream[T runtime.Object] struct {
	ctx        context.Context
	body       io.ReadCloser
	serializer runtime.NegotiatedSerializer
	frames     frameReader
	// decoder decodes the events' objects; nil until the first byte
	// told the encoding.
	decoder runtime.Decoder
	json    bool
	// objects decodes protobuf objects without the decoder where it can.
	objects protobufObjects[T]
	stopped bool
}

// newStream reads body, whose events serializer decodes; ctx is the
// request's.
func newStream[T runtime.Object](ctx context.Context, body io.ReadCloser, serializer runtime.NegotiatedSerializer) *Stream[T] {
	return &Stream[T]{ctx: ctx, body: body, serializer: serializer, frames: frameReader{r: body}}
}

// LeaveAfterInitialEvents: a response body read over HTTP may be gzipped
// by the server's WatchListCompression (see cache.LeftAfterInitialEvents).
// The response's headers, which would tell, are not seen through
// rest.Request.Stream, so it is left whether or not it was.
func (s *Stream[T]) LeaveAfterInitialEvents() bool { return true }

// Stop closes the body.
func (s *Stream[T]) Stop() {
	if !s.stopped {
		s.stopped = true
		s.body.Close()
	}
}

// Next reads and decodes the next event. It returns io.EOF once the body
// has ended or the connection dropped, the context's error once it is
// done, an ERROR event's Status as an error, and for what it could not
// decode the error client-go's watch reports (a Status with the cause
// ClientWatchDecoding).
func (s *Stream[T]) Next() (watch.EventType, T, error) {
	var zero T
	typ, obj, err := s.next()
	if err == nil {
		if typ == watch.Error {
			return typ, zero, apierrors.FromObject(obj)
		}
		t, ok := obj.(T)
		if !ok {
			return typ, zero, fmt.Errorf("unexpected %T in %s event", obj, typ)
		}
		return typ, t, nil
	}
	if s.ctx.Err() != nil {
		return "", zero, s.ctx.Err()
	}
	var decoding decodeError
	if errors.As(err, &decoding) || !utilnet.IsProbableEOF(err) && !utilnet.IsTimeout(err) {
		// As client-go's StreamWatcher reports what it cannot read.
		reporter := apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding")
		return watch.Error, zero, apierrors.FromObject(reporter.AsObject(fmt.Errorf("unable to decode an event from the watch stream: %v", err)))
	}
	return "", zero, io.EOF
}

// decodeError is an event that was read whole but could not be decoded.
type decodeError struct{ err error }

func (e decodeError) Error() string { return e.err.Error() }

func (s *Stream[T]) next() (watch.EventType, runtime.Object, error) {
	if s.decoder == nil {
		if err := s.negotiate(); err != nil {
			return "", nil, err
		}
	}
	var (
		typ, raw []byte
		err      error
	)
	if s.json {
		frame, ferr := s.frames.jsonFrame(true)
		if ferr != nil {
			return "", nil, ferr
		}
		typ, raw, err = jsonWatchEvent(frame)
	} else {
		frame, ferr := s.frames.protobufFrame()
		if ferr != nil {
			return "", nil, ferr
		}
		typ, raw, err = protobufWatchEvent(frame)
	}
	switch {
	case err == io.ErrUnexpectedEOF:
		// A truncated protobuf event, which client-go's watch takes
		// for the end of the stream.
		return "", nil, err
	case err != nil:
		return "", nil, decodeError{err}
	}
	t := watch.EventType(typ)
	switch t {
	case watch.Added, watch.Modified, watch.Deleted, watch.Error, watch.Bookmark:
	default:
		return "", nil, decodeError{fmt.Errorf("got invalid watch event type: %v", t)}
	}
	obj, direct, err := s.objects.decode(raw)
	if !direct {
		obj, err = runtime.Decode(s.decoder, raw)
		if err == nil && !s.json && t != watch.Error {
			s.objects.learn(raw, obj)
		}
	}
	if err != nil {
		return "", nil, decodeError{fmt.Errorf("unable to decode watch event: %v", err)}
	}
	return t, obj, nil
}

// negotiate tells the encoding from the stream's first byte (a protobuf
// frame's length starts with a zero byte, JSON with '{' or white space)
// and picks the client's decoder for it, as client-go's REST client picks
// it for the response's content type.
func (s *Stream[T]) negotiate() error {
	b, err := s.frames.peek()
	if err != nil {
		return err
	}
	mediaType := runtime.ContentTypeProtobuf
	switch b {
	case 0:
	case '{', ' ', '\t', '\r', '\n':
		mediaType, s.json = runtime.ContentTypeJSON, true
	default:
		return decodeError{fmt.Errorf("watch stream in an encoding this client does not read (first byte %#x)", b)}
	}
	info, ok := runtime.SerializerInfoForMediaType(s.serializer.SupportedMediaTypes(), mediaType)
	if !ok {
		return decodeError{runtime.NegotiateError{ContentType: mediaType, Stream: true}}
	}
	s.decoder = s.serializer.DecoderToVersion(info.Serializer, nil)
	if !s.json {
		s.objects = newProtobufObjects[T](s.serializer, info)
	}
	return nil
}
