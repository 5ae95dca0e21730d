package leader

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// recordingLock is a Lease that accepts or refuses writes, and records whether the fence allowed writing
// while each write was in flight.
type recordingLock struct {
	resourcelock.Interface
	fence         *Fence
	fail          bool
	allowedDuring []bool
}

func (l *recordingLock) Update(context.Context, resourcelock.LeaderElectionRecord) error {
	l.allowedDuring = append(l.allowedDuring, l.fence.Allowed())
	if l.fail {
		return errors.New("conflict")
	}
	return nil
}

func (l *recordingLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	return l.Update(ctx, r)
}

func TestFenceFollowsLeaseWrites(t *testing.T) {
	f := &Fence{}
	inner := &recordingLock{fence: f}
	lock := &fencedLock{Interface: inner, fence: f, identity: "me", validity: 100 * time.Millisecond}
	ctx := context.Background()
	if f.Allowed() {
		t.Fatal("a replica that never held the Lease may write")
	}
	if err := lock.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if !f.Allowed() || !lock.acquired.Load() {
		t.Fatal("the holder may not write after taking the Lease")
	}
	// The permission runs out with the validity unless renewed: a stalled leader stops writing by itself.
	time.Sleep(150 * time.Millisecond)
	if f.Allowed() {
		t.Fatal("the holder still writes past the renew deadline without renewing")
	}
	if err := lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if !f.Allowed() {
		t.Fatal("a renewal did not allow writing again")
	}
	// A failed renewal does not extend.
	inner.fail = true
	time.Sleep(150 * time.Millisecond)
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	if f.Allowed() {
		t.Fatal("a failed renewal allowed writing")
	}
	// Releasing revokes before the release is sent.
	inner.fail = false
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: ""})
	if got := inner.allowedDuring[len(inner.allowedDuring)-1]; got || f.Allowed() {
		t.Fatalf("writes allowed while (%v) or after (%v) releasing the Lease", got, f.Allowed())
	}
}

func TestWrapTransportRefusesWritesOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	f := &Fence{}
	client := &http.Client{Transport: f.WrapTransport(http.DefaultTransport)}
	do := func(method string) error {
		req, _ := http.NewRequest(method, srv.URL+"/apis/x", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := do(http.MethodGet); err != nil {
		t.Errorf("a read was refused: %v", err)
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if err := do(m); !errors.Is(err, ErrNotLeader) {
			t.Errorf("%s without the Lease: got %v, want ErrNotLeader", m, err)
		}
	}
	f.extend(time.Now().Add(time.Minute))
	if err := do(http.MethodPost); err != nil {
		t.Errorf("a write with the Lease was refused: %v", err)
	}
	if !Unfenced().Allowed() {
		t.Error("without leader election the only replica must write")
	}
}
