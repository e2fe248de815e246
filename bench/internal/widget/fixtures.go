package widget

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Namespaces is how many namespaces the fixtures spread their objects over.
const Namespaces = 100

var created = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// source returns version v of the i-th Widget, built in Go; the fixtures
// encode it to JSON and decode it again.
func source(i, v int) Widget {
	ns := fmt.Sprintf("team-%02d", i%Namespaces)
	return Widget{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              fmt.Sprintf("widget-%06d", i),
			Namespace:         ns,
			UID:               typesUID(i),
			ResourceVersion:   resourceVersion(i, v),
			Generation:        int64(v + 1),
			CreationTimestamp: created,
			Labels: map[string]string{
				"app.kubernetes.io/name":    "widget",
				"app.kubernetes.io/part-of": "bench",
				"tier":                      []string{"frontend", "backend", "cache"}[i%3],
				"team":                      ns,
			},
			Annotations: map[string]string{
				"ctrlgen.io/owner":       "platform-team@example.com",
				"ctrlgen.io/description": "A widget that stands in for a typical custom resource in the benchmarks.",
				"ctrlgen.io/revision":    strconv.Itoa(v),
			},
		},
		Spec: WidgetSpec{
			Image:    fmt.Sprintf("registry.example.com/widgets/widget:v1.%d.%d", v%10, i%100),
			Color:    []string{"red", "green", "blue", "yellow"}[i%4],
			Size:     []string{"small", "medium", "large"}[i%3],
			Replicas: int32(1 + (i+v)%5),
			Config: map[string]string{
				"log-level":       "info",
				"listen-address":  ":8080",
				"metrics-address": ":9090",
				"timeout":         strconv.Itoa(30+v%30) + "s",
				"feature-flags":   "alpha=false,beta=true",
			},
			Tags: []string{"bench", "widget", fmt.Sprintf("shard-%d", i%16)},
		},
		Status: WidgetStatus{
			Phase:              "Ready",
			ObservedGeneration: int64(v + 1),
			ReadyReplicas:      int32(1 + (i+v)%5),
			Message:            fmt.Sprintf("all %d replicas are ready (revision %d)", 1+(i+v)%5, v),
		},
	}
}

func typesUID(i int) types.UID {
	return types.UID(fmt.Sprintf("%08x-b3c1-4d2e-9f00-%012x", i, i*7919))
}

func resourceVersion(i, v int) string { return strconv.Itoa(1000 + v*10_000_000 + i) }

// List returns n Widgets decoded from one JSON list, the way a List call
// decodes them: Items is one backing array.
func List(n int) *WidgetList {
	src := WidgetList{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "WidgetList"},
		ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(1000 + n)},
		Items:    make([]Widget, n),
	}
	for i := range src.Items {
		src.Items[i] = source(i, 0)
	}
	data, err := json.Marshal(&src)
	if err != nil {
		panic(err)
	}
	src.Items = nil
	out := new(WidgetList)
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
	return out
}

// Updates returns n new versions of the objects of a list of size keys,
// version 1, 2, … of each key in turn (object j is version 1+j/keys of key
// j%keys), each decoded from its own JSON document, the way a watch decodes
// its events.
func Updates(keys, n int) []*Widget {
	out := make([]*Widget, n)
	for j := range out {
		src := source(j%keys, 1+j/keys)
		data, err := json.Marshal(&src)
		if err != nil {
			panic(err)
		}
		w := new(Widget)
		if err := json.Unmarshal(data, w); err != nil {
			panic(err)
		}
		out[j] = w
	}
	return out
}

// EncodedSize is the size in bytes of the JSON of one typical Widget.
func EncodedSize() int {
	src := source(4242, 0)
	data, err := json.Marshal(&src)
	if err != nil {
		panic(err)
	}
	return len(data)
}

// Keys returns n distinct work-queue keys, "namespace/name" strings.
func Keys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("team-%02d/widget-%07d", i%Namespaces, i)
	}
	return out
}
