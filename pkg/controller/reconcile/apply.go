package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
)

// AnnotationAppliedHash holds the hash of the owned fields of a child's last apply (PrepareApply).
const AnnotationAppliedHash = aimv1.GroupName + "/applied-hash"

// PrepareApply is the one rule by which a controller decides whether a child it keeps in line with its parent
// (an InferenceService, an HTTPRoute, a template, a template cache) needs a server-side apply. The body of
// obj (ApplyObject) carries the hash of its owned fields in AnnotationAppliedHash. It is to be sent when live
// (the cached child; nil, or a nil pointer, if there is none) carries another hash, because the desired object changed (the
// apply also removes fields it no longer sets), or when live no longer holds a field of it with its value, a
// change made outside the controller, which drift names. Otherwise body is nil: nothing is sent, so a steady
// state costs no request. Children created once and never changed (Jobs, PVCs, artifacts, models of a
// source) are applied when they do not exist. The values at the paths unhashed (the kind's, which its caller
// knows: kserve.ScaleFields) are left out of the hash but still applied and compared; their shape (which keys and
// list elements there are) stays in it, so that a field removed, which Drift cannot see, still moves the hash and
// the apply removes it.
func PrepareApply(obj, live runtime.Object, unhashed ...[]string) (body []byte, drift string, err error) {
	desired, err := ApplyObject(obj)
	if err != nil {
		return nil, "", err
	}
	data, err := json.Marshal(desired)
	if err != nil {
		return nil, "", fmt.Errorf("encoding %T for an apply: %w", obj, err)
	}
	hash, legacy := naming.Hash(16, string(data)), ""
	if len(unhashed) > 0 {
		// The hash of earlier releases, over every field, still counts as steady: an upgrade rewrites no annotation.
		legacy = hash
		if hash, err = hashWithout(desired, unhashed); err != nil {
			return nil, "", fmt.Errorf("encoding %T for an apply: %w", obj, err)
		}
	}
	if live != nil && !reflect.ValueOf(live).IsNil() {
		cur, err := manager.AsUnstructured(live)
		if err != nil {
			return nil, "", err
		}
		// The hash compared, every other field of the desired object is to be held.
		if h := cur.GetAnnotations()[AnnotationAppliedHash]; h == hash || h == legacy && legacy != "" {
			if drift = Drift(cur.Object, desired); drift == "" {
				return nil, "", nil // the steady state: nothing to encode, nothing to send
			}
			if h == hash && unhashedField(unhashed, drift) {
				drift = "" // a changed replica count, say, is no change made outside the controller
			}
		}
	}
	if err := unstructured.SetNestedField(desired, hash, "metadata", "annotations", AnnotationAppliedHash); err != nil {
		return nil, "", fmt.Errorf("annotating %T: %w", obj, err)
	}
	if data, err = json.Marshal(desired); err != nil {
		return nil, "", fmt.Errorf("encoding %T for an apply: %w", obj, err)
	}
	return data, drift, nil
}

// hashWithout is the hash of desired with the values at paths replaced by their shape.
func hashWithout(desired map[string]any, paths [][]string) (string, error) {
	hashed := runtime.DeepCopyJSON(desired)
	for _, p := range paths {
		if v, found, _ := unstructured.NestedFieldNoCopy(hashed, p...); found {
			if err := unstructured.SetNestedField(hashed, shape(v), p...); err != nil {
				return "", err
			}
		}
	}
	data, err := json.Marshal(hashed)
	if err != nil {
		return "", err
	}
	return naming.Hash(16, string(data)), nil
}

// shape is v with every leaf value replaced by true: its keys and the lengths of its lists.
func shape(v any) any { return rebuild(v, func(any) any { return true }) }

// unhashedField reports whether the field Drift names is one of the unhashed fields.
func unhashedField(unhashed [][]string, field string) bool {
	for _, p := range unhashed {
		if path := strings.Join(p, "."); field == path || strings.HasPrefix(field, path+".") || strings.HasPrefix(field, path+"[") {
			return true
		}
	}
	return false
}

// appliedMetadata are the metadata fields a controller sets on its children; the rest (uid, resourceVersion,
// creationTimestamp, managedFields, ...) belong to the server.
var appliedMetadata = []string{"name", "namespace", "generateName", "labels", "annotations", "ownerReferences", "finalizers"}

// ApplyObject is the body of a server-side apply of a desired object built as a typed struct: only the
// fields the controller means to own. A typed struct marshals its zero values (creationTimestamp: null,
// status: {}, a status's empty strings); sent as they are, an apply claims them and the live object never
// holds them (the server drops status and nulls), so every comparison with it would see drift. Status,
// server-set metadata and nulls are left out. Empty objects stay: some mean something (emptyDir: {}).
func ApplyObject(obj runtime.Object) (map[string]any, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T for an apply: %w", obj, err)
	}
	delete(u, "status")
	if meta, ok := u["metadata"].(map[string]any); ok {
		kept := map[string]any{}
		for _, k := range appliedMetadata {
			if v, ok := meta[k]; ok {
				kept[k] = v
			}
		}
		u["metadata"] = kept
	}
	return prune(u).(map[string]any), nil
}

// ApplyBody is ApplyObject encoded.
func ApplyBody(obj runtime.Object) ([]byte, error) {
	body, err := ApplyObject(obj)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding %T for an apply: %w", obj, err)
	}
	return data, nil
}

// prune drops nulls; lists keep their length (an element is a position in them).
func prune(v any) any { return rebuild(v, func(leaf any) any { return leaf }) }

// rebuild copies a decoded JSON value without the map entries that are null, leaf giving each leaf's value.
func rebuild(v any, leaf func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				out[k] = rebuild(e, leaf)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rebuild(e, leaf)
		}
		return out
	}
	return leaf(v)
}

// ApplyChanged is the one owned apply of a child kept in line with its parent: the apply of obj is sent, through
// send, only when PrepareApply says so (the desired object changed, or live lost a field of it); a drift it
// reverts is logged. live is the cached child (nil, or a nil pointer, when there is none). sent says whether a
// request was made; errors name the object. unhashed are PrepareApply's.
func ApplyChanged(ctx context.Context, obj, live runtime.Object, send func(ctx context.Context, body []byte) error, unhashed ...[]string) (sent bool, err error) {
	data, drift, err := PrepareApply(obj, live, unhashed...)
	if err != nil || data == nil {
		return false, err
	}
	kind, name := obj.GetObjectKind().GroupVersionKind().Kind, cache.ObjectName{}
	if m, merr := meta.Accessor(obj); merr == nil {
		name = cache.NewObjectName(m.GetNamespace(), m.GetName())
	}
	if drift != "" {
		klog.FromContext(ctx).Info("Reverting a change made outside the controller", "kind", kind, "object", name.String(), "field", drift)
	}
	if err := send(ctx, data); err != nil {
		return true, fmt.Errorf("applying %s %s: %w", kind, name, err)
	}
	return true, nil
}

// Sender sends apply bodies through a typed client's Apply method (Send), for ApplyChanged.
func Sender[AC, T any](apply func(context.Context, *AC, metav1.ApplyOptions) (T, error), fieldManager string) func(context.Context, []byte) error {
	return func(ctx context.Context, body []byte) error {
		_, err := Send(ctx, body, apply, fieldManager)
		return err
	}
}

// Send sends an apply body (ApplyBody, PrepareApply) through a typed client's Apply method, as the kind's
// apply configuration (client-go's for Kubernetes kinds, the generated ones for AIM kinds), with the
// controller's field manager, taking over fields another manager set.
func Send[AC, T any](ctx context.Context, body []byte, apply func(context.Context, *AC, metav1.ApplyOptions) (T, error), fieldManager string) (T, error) {
	var ac AC
	if err := json.Unmarshal(body, &ac); err != nil {
		var zero T
		return zero, fmt.Errorf("reading an apply body as %T: %w", ac, err)
	}
	return apply(ctx, &ac, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
}

// Apply sends the apply of obj (its ApplyBody) through a typed client's Apply method: for the children created
// once (Jobs, PVCs, artifacts, ...), which are applied whenever they do not exist. Errors name the object.
func Apply[AC, T any](ctx context.Context, obj runtime.Object, apply func(context.Context, *AC, metav1.ApplyOptions) (T, error), fieldManager string) (T, error) {
	var applied T
	body, err := ApplyBody(obj)
	if err == nil {
		applied, err = Send(ctx, body, apply, fieldManager)
	}
	if err != nil {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		if m, merr := meta.Accessor(obj); merr == nil {
			return applied, fmt.Errorf("applying %s %s: %w", kind, cache.NewObjectName(m.GetNamespace(), m.GetName()), err)
		}
		return applied, fmt.Errorf("applying %s: %w", kind, err)
	}
	return applied, nil
}
