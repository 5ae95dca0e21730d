package expectations

import (
	"testing"
	"time"
)

func TestPendingUntilSeenOrExpired(t *testing.T) {
	now := time.Unix(1000, 0)
	c := NewCreations(time.Minute)
	c.now = func() time.Time { return now }
	c.Expect("ns/a")
	c.Expect("ns/b")
	cache := map[string]bool{}
	seen := func(k string) bool { return cache[k] }
	if n := c.Pending(seen); n != 2 {
		t.Fatalf("pending before the cache shows anything = %d, want 2", n)
	}
	cache["ns/a"] = true
	if n := c.Pending(seen); n != 1 {
		t.Fatalf("pending once the cache shows a = %d, want 1", n)
	}
	delete(cache, "ns/a") // a finished and went: the cache counts it no longer, and neither do we
	if n := c.Pending(seen); n != 1 {
		t.Fatalf("pending after a left the cache = %d, want 1", n)
	}
	now = now.Add(2 * time.Minute)
	if n := c.Pending(seen); n != 0 {
		t.Fatalf("pending after the TTL = %d, want 0", n)
	}
}

func TestWritesUnseenUntilTheCacheMoves(t *testing.T) {
	w := NewWrites()
	if w.Unseen("a", "5") {
		t.Fatal("unseen before any write")
	}
	w.Wrote("a", "5")
	w.Wrote("b", "") // no version: nothing to compare
	if !w.Unseen("a", "5") || !w.Unseen("a", "5") {
		t.Fatal("the cache still shows the version the write replaced: unseen, and again")
	}
	if w.Unseen("b", "") {
		t.Fatal("an object written without a version is never unseen")
	}
	if w.Unseen("a", "6") || w.Unseen("a", "5") {
		t.Fatal("once the cache showed another version, the write is forgotten")
	}
	w.Wrote("a", "6")
	w.Forget("a")
	if w.Unseen("a", "6") {
		t.Fatal("a forgotten object is not unseen")
	}
}
