package expirecache

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestEntriesExpireAfterTheirOwnTTL(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	c := New[string, int](10, clk)
	c.Add("short", 1, 30*time.Second)
	c.Add("long", 2, 2*time.Minute)

	clk.SetTime(clk.Now().Add(30*time.Second - time.Nanosecond))
	if v, ok := c.Get("short"); !ok || v != 1 {
		t.Fatalf("short before its TTL: %v, %v", v, ok)
	}
	clk.SetTime(clk.Now().Add(time.Nanosecond))
	if _, ok := c.Get("short"); ok {
		t.Fatal("short is still there at its TTL")
	}
	if c.Len() != 1 {
		t.Fatalf("an expired entry was kept after Get: %d entries", c.Len())
	}
	if v, ok := c.Get("long"); !ok || v != 2 {
		t.Fatalf("long at 30s: %v, %v", v, ok)
	}
	clk.SetTime(clk.Now().Add(90 * time.Second))
	if _, ok := c.Get("long"); ok {
		t.Fatal("long is still there after 2 minutes")
	}
}

func TestAddReplacesAndRestartsTheTTL(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	c := New[string, int](10, clk)
	c.Add("k", 1, time.Minute)
	clk.SetTime(clk.Now().Add(50 * time.Second))
	c.Add("k", 2, time.Minute)
	clk.SetTime(clk.Now().Add(50 * time.Second))
	if v, ok := c.Get("k"); !ok || v != 2 || c.Len() != 1 {
		t.Fatalf("after replacing: %v, %v, %d entries", v, ok, c.Len())
	}
}

func TestFullCacheEvictsTheLeastRecentlyUsed(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	c := New[string, int](2, clk)
	c.Add("a", 1, time.Minute)
	c.Add("b", 2, time.Minute)
	c.Get("a") // b is now the least recently used
	c.Add("c", 3, time.Minute)
	if _, ok := c.Get("b"); ok {
		t.Error("b was kept over the bound")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	if c.Len() != 2 {
		t.Errorf("%d entries in a cache of 2", c.Len())
	}
}
