// Package decodetest holds the golden types of the generated JSON
// decoders (apis/golden/v1: every rule of encoding/json the decoders
// follow, and every case they leave to sigs.k8s.io/json) and, next to the
// typed client generated for them, the differential fuzz test against
// apimachinery's JSON serializer:
//
//	go test -run FuzzDecode ./internal/decodetest/...                   # the committed corpus, as make test runs it
//	go test -fuzz FuzzDecode ./internal/decodetest/generated/clientset/versioned/typed/golden/v1
//
// make generate regenerates generated/, make verify checks it is current.
package decodetest

//go:generate go run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --generators deepcopy,register,clientset --with-applyconfig=false --output-dir generated ./apis/...
