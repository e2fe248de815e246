package cache

import (
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

func withUID(obj *corev1.ConfigMap, uid string) *corev1.ConfigMap {
	obj.UID = types.UID(uid)
	return obj
}

// popAll pops everything queued and returns it in order.
func popAll(t *testing.T, f *DeltaFIFO[*corev1.ConfigMap]) (keys []ObjectName, deltas []Deltas[*corev1.ConfigMap], initial []bool) {
	t.Helper()
	for f.Len() > 0 {
		if err := f.Pop(func(k ObjectName, d Deltas[*corev1.ConfigMap], isInitial bool) {
			keys = append(keys, k)
			deltas = append(deltas, d)
			initial = append(initial, isInitial)
		}); err != nil {
			t.Fatal(err)
		}
	}
	return keys, deltas, initial
}

func deltaTypes(d Deltas[*corev1.ConfigMap]) []DeltaType {
	out := make([]DeltaType, len(d))
	for i := range d {
		out[i] = d[i].Type
	}
	return out
}

func equalTypes(a, b []DeltaType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDeltaFIFOKeepsKeyOrderAndCollectsDeltasPerKey(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](nil, nil)
	f.Add(cm("ns", "a", "1"))
	f.Add(cm("ns", "b", "1"))
	f.Update(cm("ns", "a", "2"))
	f.Delete(cm("ns", "a", "2"))
	keys, deltas, _ := popAll(t, f)
	if len(keys) != 2 || keys[0].Name != "a" || keys[1].Name != "b" {
		t.Fatalf("keys = %v, want [ns/a ns/b]", keys)
	}
	if got, want := deltaTypes(deltas[0]), []DeltaType{Added, Updated, Deleted}; !equalTypes(got, want) {
		t.Fatalf("deltas of a = %v, want %v", got, want)
	}
	if deltas[0][1].Object.Data["v"] != "2" {
		t.Fatalf("update delta carries %v", deltas[0][1].Object.Data)
	}
}

func TestDeltaFIFODedupsConsecutiveDeletesKeepingTheKnownState(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(cm("ns", "a", "old"))
	f := NewDeltaFIFO[*corev1.ConfigMap](idx, nil)
	f.Replace(nil, "1") // tombstone for a, final state unknown
	f.Delete(cm("ns", "a", "final"))
	_, deltas, _ := popAll(t, f)
	if len(deltas) != 1 || len(deltas[0]) != 1 {
		t.Fatalf("deltas = %v, want one Deleted", deltas)
	}
	d := deltas[0][0]
	if d.Type != Deleted || d.FinalStateUnknown || d.Object.Data["v"] != "final" {
		t.Fatalf("kept %+v, want the delete with the known final state", d)
	}
}

// Two known deletes of one key collapse into the older, as client-go's
// isDeletionDup keeps b, the older; a newer tombstone does not replace a
// known state.
func TestDeltaFIFODedupsConsecutiveDeletesKeepingTheOlder(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](nil, nil)
	f.Add(cm("ns", "a", "1"))
	f.Delete(cm("ns", "a", "older"))
	f.Delete(cm("ns", "a", "newer"))
	_, deltas, _ := popAll(t, f)
	if got, want := deltaTypes(deltas[0]), []DeltaType{Added, Deleted}; !equalTypes(got, want) {
		t.Fatalf("deltas = %v, want %v", got, want)
	}
	if v := deltas[0][1].Object.Data["v"]; v != "older" {
		t.Fatalf("kept the delete carrying %q, want the older one", v)
	}

	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(cm("ns", "b", "known"))
	f = NewDeltaFIFO[*corev1.ConfigMap](idx, nil)
	f.Delete(cm("ns", "b", "final"))
	f.Replace(nil, "2") // b is gone from the list too, but already deleted
	_, deltas, _ = popAll(t, f)
	if len(deltas) != 1 || len(deltas[0]) != 1 || deltas[0][0].FinalStateUnknown || deltas[0][0].Object.Data["v"] != "final" {
		t.Fatalf("deltas = %+v, want the one known delete", deltas)
	}
}

// Without a known-objects store, a delete of a key that is not queued was
// reported by a relist already; client-go's DeltaFIFO drops it.
func TestDeltaFIFOWithoutKnownObjectsIgnoresDeleteOfUnqueuedKey(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](nil, nil)
	f.Delete(cm("ns", "ghost", ""))
	if f.Len() != 0 {
		t.Fatalf("queued %d keys for a delete of a key never queued", f.Len())
	}
	f.Add(cm("ns", "a", ""))
	f.Delete(cm("ns", "a", ""))
	if f.Len() != 1 {
		t.Fatalf("delete of a queued key dropped")
	}
}

func TestDeltaFIFOIgnoresDeleteOfUnknownObject(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](NewIndexer[*corev1.ConfigMap](nil), nil)
	f.Delete(cm("ns", "ghost", ""))
	if f.Len() != 0 {
		t.Fatalf("queued %d keys for an unknown delete", f.Len())
	}
}

func TestDeltaFIFOReplaceEmitsTombstonesWithLastKnownState(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(cm("ns", "known-gone", "cached"))
	idx.Add(cm("ns", "kept", "cached"))
	f := NewDeltaFIFO[*corev1.ConfigMap](idx, nil)
	f.Add(cm("ns", "queued-gone", "queued"))
	f.Replace([]*corev1.ConfigMap{cm("ns", "kept", "new")}, "9")

	keys, deltas, _ := popAll(t, f)
	got := map[string]Deltas[*corev1.ConfigMap]{}
	for i, k := range keys {
		got[k.Name] = deltas[i]
	}
	for name, want := range map[string]string{"known-gone": "cached", "queued-gone": "queued"} {
		d, ok := got[name].Newest()
		if !ok || d.Type != Deleted || !d.FinalStateUnknown || d.Object.Data["v"] != want {
			t.Errorf("%s: newest delta %+v, want a tombstone carrying %q", name, d, want)
		}
	}
	if d, _ := got["kept"].Newest(); d.Type != Replaced || d.Object.Data["v"] != "new" {
		t.Errorf("kept: newest delta %+v, want Replaced with the listed object", d)
	}
}

func TestDeltaFIFOReplaceWithNewUIDDeletesThenAdds(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(withUID(cm("ns", "a", "old"), "u1"))
	f := NewDeltaFIFO[*corev1.ConfigMap](idx, nil)
	f.Replace([]*corev1.ConfigMap{withUID(cm("ns", "a", "new"), "u2")}, "5")
	_, deltas, _ := popAll(t, f)
	if len(deltas) != 1 || !equalTypes(deltaTypes(deltas[0]), []DeltaType{Deleted, Replaced}) {
		t.Fatalf("deltas = %v, want [Deleted Replaced]", deltas)
	}
	if del := deltas[0][0]; del.Object.UID != "u1" || !del.FinalStateUnknown {
		t.Fatalf("delete carries %+v, want the old object as a tombstone", del)
	}
	if add := deltas[0][1]; add.Object.UID != "u2" {
		t.Fatalf("replace carries uid %s, want u2", add.Object.UID)
	}
}

func TestDeltaFIFOHasSyncedAfterInitialListIsPopped(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](NewIndexer[*corev1.ConfigMap](nil), nil)
	if f.HasSynced() {
		t.Fatal("synced before any list")
	}
	list := make([]*corev1.ConfigMap, 0, 200)
	for i := range 200 {
		list = append(list, cm("ns", string(rune('a'+i%26))+string(rune('a'+i/26)), ""))
	}
	f.Replace(list, "1")
	f.Add(cm("ns", "after", ""))
	popped := 0
	for popped < 200 {
		if f.HasSynced() {
			t.Fatalf("synced after %d of 200 initial keys", popped)
		}
		f.Pop(func(_ ObjectName, _ Deltas[*corev1.ConfigMap], isInitial bool) {
			if popped < 200 && !isInitial {
				t.Fatalf("key %d of the initial list not marked initial", popped)
			}
			popped++
		})
	}
	if !f.HasSynced() {
		t.Fatal("not synced once the initial list was popped")
	}
}

func TestDeltaFIFOResyncQueuesSyncForIdleKnownObjects(t *testing.T) {
	idx := NewIndexer[*corev1.ConfigMap](nil)
	idx.Add(cm("ns", "idle", "1"))
	idx.Add(cm("ns", "busy", "1"))
	f := NewDeltaFIFO[*corev1.ConfigMap](idx, nil)
	f.Update(cm("ns", "busy", "2"))
	f.Resync()
	keys, deltas, _ := popAll(t, f)
	got := map[string][]DeltaType{}
	for i, k := range keys {
		got[k.Name] = deltaTypes(deltas[i])
	}
	if !equalTypes(got["idle"], []DeltaType{Sync}) || !equalTypes(got["busy"], []DeltaType{Updated}) {
		t.Fatalf("deltas = %v, want idle:[Sync] busy:[Updated]", got)
	}
}

func TestDeltaFIFOAppliesTransform(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](nil, func(o *corev1.ConfigMap) *corev1.ConfigMap {
		o.ManagedFields = nil
		o.Data["seen"] = "yes"
		return o
	})
	obj := cm("ns", "a", "1")
	obj.ManagedFields = make([]metav1ManagedFieldsEntry, 1)
	f.Add(obj)
	f.Replace([]*corev1.ConfigMap{cm("ns", "b", "1")}, "1")
	_, deltas, _ := popAll(t, f)
	for _, d := range deltas {
		o := d[len(d)-1].Object
		if o.ManagedFields != nil || o.Data["seen"] != "yes" {
			t.Fatalf("%s not transformed: %+v", o.Name, o)
		}
	}
}

func TestDeltaFIFOPopReturnsClosedOnceEmpty(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](nil, nil)
	f.Add(cm("ns", "a", "1"))
	f.Close()
	n := 0
	if err := f.Pop(func(ObjectName, Deltas[*corev1.ConfigMap], bool) { n++ }); err != nil || n != 1 {
		t.Fatalf("first Pop after Close: err %v, %d items; want the queued item", err, n)
	}
	if err := f.Pop(func(ObjectName, Deltas[*corev1.ConfigMap], bool) {}); !errors.Is(err, ErrFIFOClosed) {
		t.Fatalf("Pop on closed empty queue: %v", err)
	}
}

func TestDeltaFIFOGivesBackStorageOnceDrained(t *testing.T) {
	f := NewDeltaFIFO[*corev1.ConfigMap](nil, nil)
	list := make([]*corev1.ConfigMap, 5000)
	for i := range list {
		list[i] = cm("ns", "o"+itoa(i), "")
	}
	f.Replace(list, "1")
	popAll(t, f)
	if cap(f.queue) != 0 || f.highWater != 0 {
		t.Fatalf("drained queue keeps cap %d, high water %d", cap(f.queue), f.highWater)
	}
}

// TestDeltaFIFOProcessesWatchEventsInlineOnlyWhenNothingIsQueued checks
// that a watch event is handed to inline at once only where Pop would have
// processed it next: after sync, with nothing queued, while open.
func TestDeltaFIFOProcessesWatchEventsInlineOnlyWhenNothingIsQueued(t *testing.T) {
	var inlined []string
	known := newThreadSafeMap[*corev1.ConfigMap]()
	inline := func(k ObjectName, d Deltas[*corev1.ConfigMap], isInitial bool) {
		if len(d) != 1 || isInitial {
			t.Errorf("inline got %s %v initial=%v, want one delta, not initial", k, deltaTypes(d), isInitial)
		}
		inlined = append(inlined, k.Name+":"+d[0].Type.String())
		if d[0].Type == Deleted {
			known.remove(k)
		} else {
			known.swap(d[0].Object)
		}
	}
	f := NewDeltaFIFOWithOptions(DeltaFIFOOptions[*corev1.ConfigMap]{KnownObjects: known, Inline: inline})

	// Before the first Replace has been popped: queued.
	f.Replace([]*corev1.ConfigMap{cm("ns", "a", "1")}, "1")
	f.Add(cm("ns", "b", "2"))
	if len(inlined) != 0 || f.Len() != 2 {
		t.Fatalf("before sync: inlined %v, %d queued; want none inlined, 2 queued", inlined, f.Len())
	}
	keys, _, initial := popAll(t, f)
	if len(keys) != 2 || keys[0].Name != "a" || keys[1].Name != "b" || !initial[0] || initial[1] {
		t.Fatalf("popped %v initial %v, want [a b] [true false]", keys, initial)
	}

	// Synced and empty: every kind of watch event goes inline, in order.
	known.swap(cm("ns", "a", "1"))
	f.Update(cm("ns", "a", "3"))
	f.Delete(cm("ns", "a", "4"))
	f.Add(cm("ns", "c", "5"))
	if want := []string{"a:Updated", "a:Deleted", "c:Added"}; !slices.Equal(inlined, want) || f.Len() != 0 {
		t.Fatalf("after sync: inlined %v with %d queued, want %v and none queued", inlined, f.Len(), want)
	}

	// Something queued (c by a Resync, or a Pop loop behind): the event waits
	// behind it, so keys keep their order.
	inlined = nil
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	f.Update(cm("ns", "d", "6"))
	if len(inlined) != 0 || f.Len() != 2 {
		t.Fatalf("behind a queued key: inlined %v, %d queued; want none inlined, 2 queued", inlined, f.Len())
	}
	if keys, _, _ := popAll(t, f); len(keys) != 2 || keys[0].Name != "c" || keys[1].Name != "d" {
		t.Fatalf("popped %v, want [c d]", keys)
	}

	// Closed: queued for Pop to drain, never processed after Close.
	f.Close()
	f.Add(cm("ns", "e", "7"))
	if len(inlined) != 0 || f.Len() != 1 {
		t.Fatalf("after Close: inlined %v, %d queued; want none inlined, 1 queued", inlined, f.Len())
	}
}

// An informer's Reflector hands its DeltaFIFO a streamed list transformed.
var _ TransformingStore[*corev1.ConfigMap] = (*DeltaFIFO[*corev1.ConfigMap])(nil)
