package leader

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
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

// TestRunRecordsLeadershipEvents: the Lease's Events, "stopped leading" too, which is recorded as the Lease is
// given up and the fence already refuses the controller's writes, go out through the election's own client.
func TestRunRecordsLeadershipEvents(t *testing.T) {
	client := fake.NewClientset()
	e := New(Config{Client: client, Namespace: "aim-system", Name: "lease", Identity: "me", EventSource: "aim-apiserver",
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.Run(ctx, func(context.Context) { cancel() }) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	var got []string
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events("aim-system").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = got[:0]
		for _, ev := range events.Items {
			if ev.InvolvedObject.Kind == "Lease" && ev.Source.Component == "aim-apiserver" {
				got = append(got, ev.Message)
			}
		}
		return len(got) == 2, nil
	})
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"me became leader", "me stopped leading"}) {
		t.Errorf("the Lease's Events: %q (%v), want became leader and stopped leading", got, err)
	}
}
