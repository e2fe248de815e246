package v1

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Widget has a field of every shape the decoders handle.
//
// +genclient
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

// Gadget is cluster-scoped and small; its status embeds structs in the
// ways encoding/json's dominance rules sort out.
//
// +genclient
// +genclient:nonNamespaced
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   Node          `json:"spec"`
	Status Embeddings    `json:"status"`
	Other  *Embeddings   `json:"other,omitempty"`
	Meta   OwnMeta       `json:"meta"`
	Free   FreeForm      `json:"free"`
	Odd    QuotedMethods `json:"odd"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}

type (
	Phase   string
	Count   int32
	Ratio   float64
	Flag    bool
	Labels  map[string]string
	Names   []string
	Triple  [3]int16
	MyBytes []byte
	MyByte  byte
)

// WidgetSpec: scalars, pointers, named types, maps, slices, arrays.
type WidgetSpec struct {
	S    string  `json:"s"`
	B    bool    `json:"b,omitempty"`
	I    int     `json:"i"`
	I8   int8    `json:"i8"`
	I16  int16   `json:"i16"`
	I32  int32   `json:"i32"`
	I64  int64   `json:"i64"`
	U    uint    `json:"u"`
	U8   uint8   `json:"u8"`
	U16  uint16  `json:"u16"`
	U32  uint32  `json:"u32"`
	U64  uint64  `json:"u64"`
	Uptr uintptr `json:"uptr"`
	F32  float32 `json:"f32"`
	F64  float64 `json:"f64"`
	R    rune    `json:"r"`
	By   byte    `json:"by"`

	PS      *string            `json:"ps"`
	PI      *int64             `json:"pi"`
	PB      *bool              `json:"pb"`
	PF      *float32           `json:"pf"`
	PInner  *Inner             `json:"pinner"`
	PMap    *map[string]string `json:"pmap"`
	PSlice  *[]int             `json:"pslice"`
	PPhase  *Phase             `json:"pphase"`
	PP      **string           `json:"pp"`
	PLabels *Labels            `json:"plabels"`

	Phase      Phase    `json:"phase"`
	Count      Count    `json:"count"`
	Ratio      Ratio    `json:"ratio"`
	Flag       Flag     `json:"flag"`
	Labels     Labels   `json:"labels"`
	Names      Names    `json:"names"`
	Arr        [3]int32 `json:"arr"`
	Triple     Triple   `json:"triple"`
	ByteArr    [4]byte  `json:"byteArr"`
	Bytes      []byte   `json:"bytes"`
	MyBytes    MyBytes  `json:"myBytes"`
	ByteElems  []MyByte `json:"byteElems"`
	InnerArr   [2]Inner `json:"innerArr"`
	EmptyArr   [0]int   `json:"emptyArr"`
	InnerValue Inner    `json:"inner"`

	M        map[string]int             `json:"m"`
	MP       map[string]*Inner          `json:"mp"`
	MS       map[string][]string        `json:"ms"`
	MM       map[string]map[string]bool `json:"mm"`
	IntKeys  map[int32]string           `json:"intKeys"`
	Int8Keys map[int8]int8              `json:"int8Keys"`
	UintKeys map[uint8]bool             `json:"uintKeys"`
	NamedKey map[Phase]Count            `json:"namedKey"`
	TextKeys map[TextKey]string         `json:"textKeys"`
	FloatKey map[float64]string         `json:"floatKey"`

	L  []Inner             `json:"l"`
	LP []*Inner            `json:"lp"`
	LL [][]string          `json:"ll"`
	LM []map[string]string `json:"lm"`

	Time       metav1.Time           `json:"time"`
	PTime      *metav1.Time          `json:"ptime"`
	MicroTime  metav1.MicroTime      `json:"microTime"`
	Duration   metav1.Duration       `json:"duration"`
	Quantity   resource.Quantity     `json:"quantity"`
	PQuantity  *resource.Quantity    `json:"pquantity"`
	IntOrStr   intstr.IntOrString    `json:"intOrStr"`
	PIntOrStr  *intstr.IntOrString   `json:"pintOrStr"`
	Raw        runtime.RawExtension  `json:"raw"`
	Selector   *metav1.LabelSelector `json:"selector"`
	Conditions []metav1.Condition    `json:"conditions"`

	Text       TextType                     `json:"text"`
	PText      *TextType                    `json:"ptext"`
	TextList   TextList                     `json:"textList"`
	JSONValue  JSONValue                    `json:"jsonValue"`
	PJSONValue *JSONValue                   `json:"pjsonValue"`
	Both       Both                         `json:"both"`
	EmbedsTime EmbedsTime                   `json:"embedsTime"`
	Ambiguous  Ambiguous                    `json:"ambiguous"`
	Failing    FailingJSON                  `json:"failing"`
	Quantities map[string]resource.Quantity `json:"quantities"`

	Dash       string `json:"-"`
	DashComma  string `json:"-,"`
	Untagged   string
	OmitEmpty  string  `json:"oe,omitempty"`
	Quoted     int64   `json:"q,string"`
	QuotedPtr  *int32  `json:",string"`
	QS         string  `json:"qs,string"`
	QB         bool    `json:"qb,string"`
	QF         float64 `json:"qf,string"`
	QF32       float32 `json:"qf32,string"`
	QU         uint16  `json:"qu,string"`
	QPS        *string `json:"qps,string"`
	QPhase     Phase   `json:"qphase,string"`
	QSlice     []int   `json:"qslice,string"`
	BadTag     string  `json:"a\\b"`
	Spaced     string  `json:"with space"`
	Unicode    string  `json:"ünï"`
	CaseA      string  `json:"case"`
	CaseB      string  `json:"Case"`
	unexported string
}

// Inner is a small struct used in many places.
type Inner struct {
	A string `json:"a"`
	N int32  `json:"n,omitempty"`
	// Self makes it recursive.
	Self *Inner `json:"self,omitempty"`
}

// WidgetStatus holds more recursion.
type WidgetStatus struct {
	Tree  Node   `json:"tree"`
	Trees []Node `json:"trees,omitempty"`
}

// Node is a recursive tree.
type Node struct {
	Name     string          `json:"name"`
	Children []Node          `json:"children,omitempty"`
	Next     *Node           `json:"next,omitempty"`
	ByName   map[string]Node `json:"byName,omitempty"`
}

// TextType has UnmarshalText: a JSON string's value goes to it, any other
// value is an error, null leaves it alone.
type TextType struct {
	Upper string
}

func (t *TextType) UnmarshalText(b []byte) error {
	if strings.Contains(string(b), "!") {
		return errBang
	}
	t.Upper = strings.ToUpper(string(b))
	return nil
}

type bangError struct{}

func (bangError) Error() string { return "a bang" }

var errBang = bangError{}

// TextList is a slice with UnmarshalText: null sets it to nil.
type TextList []string

func (t *TextList) UnmarshalText(b []byte) error {
	*t = strings.Split(string(b), ",")
	return nil
}

// TextKey is a map key with UnmarshalText (decoded reflectively).
type TextKey string

func (k *TextKey) UnmarshalText(b []byte) error {
	*k = TextKey("key:" + string(b))
	return nil
}

// JSONValue has UnmarshalJSON with a value receiver: it gets every value,
// null included, and keeps its length.
type JSONValue struct {
	Len  int
	Null bool
}

func (JSONValue) UnmarshalJSON(b []byte) error { return nil }

// Both has both methods: UnmarshalJSON wins.
type Both struct {
	Raw string
}

func (b *Both) UnmarshalJSON(data []byte) error {
	b.Raw = string(data)
	return nil
}

func (b *Both) UnmarshalText(data []byte) error {
	b.Raw = "text:" + string(data)
	return nil
}

// EmbedsTime has Time's UnmarshalJSON, promoted: encoding/json decodes
// the whole struct with it.
type EmbedsTime struct {
	metav1.Time `json:"time"`
	Note        string `json:"note"`
}

// Ambiguous embeds two types with UnmarshalJSON at one depth: neither is
// promoted, so it decodes as a plain struct.
type Ambiguous struct {
	Both
	JSONValue
	Plain string `json:"plain"`
}

// FailingJSON's UnmarshalJSON refuses arrays.
type FailingJSON struct {
	Raw string
}

func (f *FailingJSON) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		return errBang
	}
	f.Raw = string(b)
	return nil
}

// Embeddings: inline structs, by value and by pointer; a tag name keeps
// one whole; conflicts at one depth cancel, a tag or a shallower field
// wins.
type Embeddings struct {
	Base
	*PtrBase
	Named `json:"named"`
	Conflict1
	Conflict2
	Deep
	Top string `json:"top"`
	// Shadowed hides Deep's.
	Shadowed string `json:"Shadowed"`
}

type Base struct {
	BaseField string `json:"baseField"`
	// Shared wins over Deeper's, which is deeper.
	Shared string `json:"Shared"`
}

type PtrBase struct {
	PtrField string `json:"ptrField"`
	Count    *Count `json:"ptrCount"`
}

type Named struct {
	X string `json:"x"`
}

// Conflict1 and Conflict2 are embedded at one depth: their Same fields
// cancel out; Conflict1's tagged field wins over Conflict2's untagged one.
type Conflict1 struct {
	Same string
	X    string `json:"Tagged"`
}

type Conflict2 struct {
	Same   string
	Tagged string
}

type Deep struct {
	Deeper
	Shadowed string
}

type Deeper struct {
	DeepField string `json:"deepField"`
	Shared    string
}

// OwnMeta embeds an unexported struct of this package: generated code in
// the typed client package cannot reach its fields, and decodes OwnMeta
// reflectively.
type OwnMeta struct {
	hidden
	Visible string `json:"visible"`
}

type hidden struct {
	Inside string `json:"inside"`
}

// QuotedMethods has ",string" on a type with UnmarshalJSON: decoded
// reflectively.
type QuotedMethods struct {
	Value JSONInt `json:"value,string"`
}

// JSONInt is an int with UnmarshalJSON.
type JSONInt int

func (j *JSONInt) UnmarshalJSON(b []byte) error {
	*j = JSONInt(len(b))
	return nil
}

// FreeForm holds what deepcopy-gen cannot copy: interfaces with methods
// and pointers to named pointers.
//
// +k8s:deepcopy-gen=false
type FreeForm struct {
	Any      interface{}            `json:"any"`
	AnyMap   map[string]interface{} `json:"anyMap"`
	AnySlice []any                  `json:"anySlice"`
	PAny     *interface{}           `json:"pany"`

	Err     error       `json:"err"`
	Stringy fmtStringer `json:"stringer"`
	Named   NamedPtr    `json:"named"`
}

type fmtStringer interface{ String() string }

// NamedPtr is a named pointer type: encoding/json does not look for
// methods through it.
type NamedPtr *Inner

func (in *FreeForm) DeepCopyInto(out *FreeForm) {
	*out = *in
	out.Any = copyJSON(in.Any)
	if in.AnyMap != nil {
		out.AnyMap = copyJSON(in.AnyMap).(map[string]interface{})
	}
	if in.AnySlice != nil {
		out.AnySlice = copyJSON(in.AnySlice).([]interface{})
	}
	if in.PAny != nil {
		v := copyJSON(*in.PAny)
		out.PAny = &v
	}
	if in.Named != nil {
		c := *in.Named
		out.Named = &c
	}
}

// copyJSON deep-copies JSON values; anything else is shared.
func copyJSON(v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(v))
		for k, e := range v {
			out[k] = copyJSON(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, e := range v {
			out[i] = copyJSON(e)
		}
		return out
	}
	return v
}
