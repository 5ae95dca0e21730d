//go:build e2e

package e2e

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
	aimclient "github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/typed/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/test/ledger"
)

// crashKills is how many times TestCrashConsistency kills aim-apiserver; make test runs the short form,
// make crash a long one.
var crashKills = flag.Int("crash.kills", 3, "kill -9 rounds of TestCrashConsistency")

// TestCrashConsistency churns creates, updates and deletes through kube-apiserver while aim-apiserver is
// killed with SIGKILL and restarted, then checks the ledger: no acknowledged write lost, no acknowledged
// delete resurrected, and no child created twice (models created during the kills each get exactly their
// templates). -crash.kills sets the number of kills (make crash runs many).
func TestCrashConsistency(t *testing.T) {
	a := harness(t)
	aim, kube := adminClients(t)
	leader := waitForLiveLeader(t, kube, "")
	ns := namespace(t, "e2e-crash")
	store := configStore{configs: aim.AimV1alpha1().AIMRuntimeConfigs(ns)}
	l := ledger.New()
	ctx, stop := context.WithCancel(context.Background())

	const workers, perWorker = 4, 10
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Churn(ctx, store, "c", w, perWorker, 0)
		}()
	}
	var models []string
	for round := range *crashKills {
		// A model just before the kill: the controller is creating its templates when it dies.
		model := fmt.Sprintf("m-%d", round)
		createModel(t, aim, ns, model)
		models = append(models, model)
		time.Sleep(time.Duration(1500+rand.IntN(1500)) * time.Millisecond)
		a.signal(t, syscall.SIGKILL)
		a.waitExit(t, 10*time.Second)
		a.restart(t)
	}
	time.Sleep(2 * time.Second)
	stop()
	wg.Wait()

	// Final check against what the server holds now.
	certain, err := l.Check(context.Background(), store)
	must(t, err)

	// Children: each model has exactly its two templates, owned by it, once a leader runs again.
	waitForLiveLeader(t, kube, leader)
	for _, m := range models {
		model, err := aim.AimV1alpha1().AIMModels(ns).Get(context.Background(), m, metav1.GetOptions{})
		must(t, err)
		eventually(t, 60*time.Second, "templates of "+m, func() error {
			tpls, err := aim.AimV1alpha1().AIMServiceTemplates(ns).List(context.Background(),
				metav1.ListOptions{LabelSelector: "aim.eai.amd.com/model=" + m})
			if err != nil {
				return err
			}
			if len(tpls.Items) < 2 {
				return fmt.Errorf("%d templates so far", len(tpls.Items))
			}
			if len(tpls.Items) > 2 {
				l.Violation("model %s has %d templates, want 2 (duplicate children)", m, len(tpls.Items))
				return nil
			}
			for _, tpl := range tpls.Items {
				if !ownedBy(tpl.OwnerReferences, model.UID) {
					l.Violation("template %s is not owned by model %s", tpl.Name, m)
				}
			}
			return nil
		})
	}
	c := l.Counts()
	t.Logf("%d kills; %d writes acknowledged, %d unanswered (%s); %d of %d objects checked against the ledger; %d creates found their own first attempt, %d deletes answered NotFound",
		*crashKills, c.Acked, c.Unanswered, c.FailuresSince(ledger.Counts{}), certain, c.Objects, c.RetriedCreates, c.AmbiguousDeletes)
	for _, v := range c.Violations {
		t.Error(v)
	}
	if c.Acked < 100 {
		t.Errorf("only %d acknowledged writes: the churn did not run", c.Acked)
	}
}

// configStore is the crash test's churn target: the runtime configs of one namespace, each holding its value in
// the env variable V.
type configStore struct {
	configs aimclient.AIMRuntimeConfigInterface
}

func (s configStore) Create(ctx context.Context, name, value string) error {
	_, err := s.configs.Create(ctx, runtimeConfig(name, value), metav1.CreateOptions{})
	return err
}

func (s configStore) Get(ctx context.Context, name string) (string, error) {
	c, err := s.configs.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return envValue(c), nil
}

func (s configStore) Update(ctx context.Context, name, value string) error {
	patch := fmt.Sprintf(`{"spec":{"env":[{"name":"V","value":%q}]}}`, value)
	_, err := s.configs.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

func (s configStore) Delete(ctx context.Context, name string) error {
	return s.configs.Delete(ctx, name, metav1.DeleteOptions{})
}

func (s configStore) List(ctx context.Context) (map[string]string, error) {
	list, err := s.configs.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i := range list.Items {
		out[list.Items[i].Name] = envValue(&list.Items[i])
	}
	return out, nil
}

func runtimeConfig(name, value string) *aimv1.AIMRuntimeConfig {
	c := &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Spec.Env = []corev1.EnvVar{{Name: "V", Value: value}}
	return c
}

func envValue(c *aimv1.AIMRuntimeConfig) string {
	for _, e := range c.Spec.Env {
		if e.Name == "V" {
			return e.Value
		}
	}
	return ""
}

func createModel(t *testing.T, aim versioned.Interface, ns, name string) {
	t.Helper()
	m := &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: aimv1.AIMModelSpec{
		Image: "registry.example/aim/crash-" + name + ":1.0",
		ImageMetadata: &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{
			CanonicalName: "Org/" + name,
			RecommendedDeployments: []aimv1.RecommendedDeployment{
				{GPUModel: "MI210", GPUCount: 1, Precision: "fp16", Metric: "latency"},
				{GPUModel: "MI210", GPUCount: 2, Precision: "fp16", Metric: "throughput"},
			},
		}},
	}}
	eventually(t, 60*time.Second, "model "+name, func() error {
		_, err := aim.AimV1alpha1().AIMModels(ns).Create(context.Background(), m, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

func ownedBy(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid {
			return true
		}
	}
	return false
}
