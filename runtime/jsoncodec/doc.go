// Package jsoncodec decodes JSON API objects without reflection, for the
// typed clients ctrlgen generates for custom resources.
//
// ctrlgen writes, next to each typed client, a decode function per Go type
// its kinds reach; they read the body with a [Decoder] and store fields
// directly. [NegotiatedSerializer] puts them in front of apimachinery's
// JSON serializer (k8s.io/apimachinery/pkg/runtime/serializer/json, which
// decodes with sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts) for
// the kinds registered with it: list responses and watch events of those
// kinds are decoded by the generated code, everything else by
// apimachinery's serializer, unchanged.
//
// The semantics are that serializer's, rule for rule: case-sensitive
// field names, unknown fields dropped, null leaving non-nullable values
// untouched and setting pointers, maps, slices and interfaces to nil,
// integers that overflow or carry a fraction or exponent refused, strings
// with invalid UTF-8 or lone surrogates replaced by U+FFFD, embedded
// structs flattened by encoding/json's dominance rules, the ",string"
// option, json.Unmarshaler and encoding.TextUnmarshaler called with the
// bytes encoding/json would pass, numbers in interface values kept as
// int64 when integral, a nesting limit of 10000, and apiVersion and kind
// read as SimpleMetaFactory.Interpret reads them (encoding/json, keys
// matched case-insensitively). Merging into a non-empty object (an
// existing map keeps its entries, a slice reuses its elements) is kept
// too.
//
// Whenever the generated decoder fails (a syntax error, a value of the
// wrong type, an UnmarshalJSON error) or the body's kind is not the one
// decoded, the serializer restores the target object and decodes the same
// bytes with apimachinery's serializer, so errors, and the objects
// returned with them, are exactly apimachinery's.
//
// Setting CTRLGEN_JSON_DECODER=off in the environment turns the generated
// decoders off in every client created afterwards.
package jsoncodec
