package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	// churnLabel marks the churn's services; churnValue holds the ledger's value.
	churnLabel = "soak.aim-apiserver.io/churn"
	churnValue = "soak.aim-apiserver.io/value"
)

var runtimeConfigs = schema.GroupVersionResource{Group: aimGroup, Version: "v1alpha1", Resource: "aimruntimeconfigs"}

// serviceStore is the churn's ledger.Store: AIMServices of one namespace on a model whose shared cache is
// Ready, so that each created service gets an InferenceService; the value is an annotation.
type serviceStore struct {
	dyn              dynamic.Interface
	namespace, model string
}

func (s serviceStore) res() dynamic.ResourceInterface {
	return s.dyn.Resource(services).Namespace(s.namespace)
}

func (s serviceStore) Create(ctx context.Context, name, value string) error {
	o := object("AIMService", name, s.namespace, map[string]any{"model": map[string]any{"name": s.model}})
	o.SetLabels(map[string]string{runLabel: "controller", churnLabel: "true"})
	o.SetAnnotations(map[string]string{churnValue: value})
	_, err := s.res().Create(ctx, o, metav1.CreateOptions{})
	return err
}

// Get reads a service; one being deleted (its finalizer not yet removed by the controller) is waited out, as
// what a delete leaves is no object.
func (s serviceStore) Get(ctx context.Context, name string) (string, error) {
	var value string
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		o, err := s.res().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		value = o.GetAnnotations()[churnValue]
		return o.GetDeletionTimestamp() == nil, nil
	})
	return value, err
}

func (s serviceStore) Update(ctx context.Context, name, value string) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{churnValue: value}}})
	_, err := s.res().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// Delete deletes a service and waits until it is gone, as kubectl delete does: the controller removes its
// finalizer first, so an acknowledged delete is one whose object went.
func (s serviceStore) Delete(ctx context.Context, name string) error {
	if err := s.res().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	return wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := s.res().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, nil
	})
}

func (s serviceStore) List(ctx context.Context) (map[string]string, error) {
	return listValues(ctx, s.res(), churnLabel+"=true", churnValue)
}

// configStore is the noisy writer's store: AIMRuntimeConfigs, created and deleted as a CI job would.
type configStore struct {
	dyn       dynamic.Interface
	namespace string
}

func (s configStore) res() dynamic.ResourceInterface {
	return s.dyn.Resource(runtimeConfigs).Namespace(s.namespace)
}

func (s configStore) Create(ctx context.Context, name, value string) error {
	o := object("AIMRuntimeConfig", name, s.namespace, map[string]any{})
	o.SetAnnotations(map[string]string{churnValue: value})
	_, err := s.res().Create(ctx, o, metav1.CreateOptions{})
	return err
}

func (s configStore) Get(ctx context.Context, name string) (string, error) {
	o, err := s.res().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return o.GetAnnotations()[churnValue], nil
}

func (s configStore) Update(ctx context.Context, name, value string) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{churnValue: value}}})
	_, err := s.res().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

func (s configStore) Delete(ctx context.Context, name string) error {
	return s.res().Delete(ctx, name, metav1.DeleteOptions{})
}

func (s configStore) List(ctx context.Context) (map[string]string, error) {
	return listValues(ctx, s.res(), runLabel+"=controller", churnValue)
}

func listValues(ctx context.Context, r dynamic.ResourceInterface, selector, annotation string) (map[string]string, error) {
	list, err := r.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list.Items))
	for _, o := range list.Items {
		out[o.GetName()] = o.GetAnnotations()[annotation]
	}
	return out, nil
}

// as is a dynamic client through kube-apiserver that acts as user (impersonated by the admin), with client-go's
// default rate limits: a client as a dashboard or CI job has it.
func (cl *clients) as(user string) (dynamic.Interface, error) {
	rc, err := clientcmd.BuildConfigFromFlags("", cl.kubeconfig)
	if err != nil {
		return nil, err
	}
	rc.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
	rc.QPS, rc.Burst = 50, 100
	return dynamic.NewForConfig(rc)
}

// histogram is a cumulative histogram's counts by upper bound, summed over its series.
type histogram map[float64]float64

func histogramOf(f *dto.MetricFamily) histogram {
	h := histogram{}
	for _, m := range f.GetMetric() {
		for _, b := range m.GetHistogram().GetBucket() {
			// The text format lists the +Inf bucket, which is the sample count added below.
			if !math.IsInf(b.GetUpperBound(), 1) {
				h[b.GetUpperBound()] += float64(b.GetCumulativeCount())
			}
		}
		h[math.Inf(1)] += float64(m.GetHistogram().GetSampleCount())
	}
	return h
}

// since is what was counted after earlier; a process that started again in between counts from zero.
func (h histogram) since(earlier histogram) histogram {
	if h[math.Inf(1)] < earlier[math.Inf(1)] {
		return h
	}
	out := histogram{}
	for b, n := range h {
		out[b] = n - earlier[b]
	}
	return out
}

func (h histogram) plus(o histogram) histogram {
	out := histogram{}
	for b, n := range h {
		out[b] += n
	}
	for b, n := range o {
		out[b] += n
	}
	return out
}

// quantile is the upper bound of the bucket holding quantile q, as "<= 64ms"; "-" without samples.
func (h histogram) quantile(q float64) string {
	total := h[math.Inf(1)]
	if total == 0 {
		return "-"
	}
	bounds := make([]float64, 0, len(h))
	for b := range h {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	for _, b := range bounds {
		if h[b] >= q*total {
			if math.IsInf(b, 1) {
				return "> the largest bucket"
			}
			return fmt.Sprintf("<= %gs", b)
		}
	}
	return "-"
}
