package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/server/options/encryptionconfig"
	"k8s.io/apiserver/pkg/storage"
	storagevalue "k8s.io/apiserver/pkg/storage/value"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
	"github.com/aim-apiserver/aim-apiserver/pkg/fieldformat"
	"github.com/aim-apiserver/aim-apiserver/pkg/storage/compression"
)

// aimStore reads and writes AIM objects in aim-apiserver's etcd with the server's own storage (codec, keys,
// storage version), but without the create strategy: UIDs, timestamps, generation, finalizers, owner
// references and status are written as they are.
type aimStore struct {
	kinds  []*kindStore
	format *fieldformat.Checker
}

// kindStore is the storage of one AIM kind.
type kindStore struct{ apiserver.StoredKind }

// newAIMStore opens the store as the server does: its codec, its compression, and its encryption at rest
// (--encryption-provider-config), so that copied objects are written as the server writes them and read back by
// it; ctx bounds the life of KMS connections.
func newAIMStore(ctx context.Context, etcd *genericoptions.EtcdOptions, compressionMode string) (*aimStore, error) {
	if err := apiserver.ApplyStorageCodec(etcd); err != nil {
		return nil, err
	}
	var transformers storagevalue.ResourceTransformers
	if path := etcd.EncryptionProviderConfigFilepath; path != "" {
		cfg, err := encryptionconfig.LoadEncryptionConfig(ctx, path, false, "aim-apiserver-migrate")
		if err != nil {
			return nil, fmt.Errorf("--encryption-provider-config: %w", err)
		}
		transformers = encryptionconfig.StaticTransformers(cfg.Transformers)
	}
	getter, err := compression.Getter(etcd.CreateRESTOptionsGetter(&genericoptions.SimpleStorageFactory{StorageConfig: etcd.StorageConfig}, transformers),
		compressionMode)
	if err != nil {
		return nil, err
	}
	kinds, err := apiserver.OpenStorage(getter)
	if err != nil {
		return nil, fmt.Errorf("opening aim-apiserver's storage: %w", err)
	}
	s := &aimStore{}
	resources := map[string]string{}
	for _, k := range kinds {
		s.kinds = append(s.kinds, &kindStore{k})
		resources[k.Resource] = k.Kind
	}
	format, err := fieldformat.New(apiserver.Scheme, v1alpha1.SchemeGroupVersion, resources, 3*1024*1024)
	if err != nil {
		s.close()
		return nil, err
	}
	s.format = format
	return s, nil
}

func (s *aimStore) close() {
	for _, k := range s.kinds {
		k.Store.Destroy()
	}
}

// kindOf is the storage of an object's kind.
func (s *aimStore) kindOf(u *unstructured.Unstructured) (*kindStore, error) {
	for _, k := range s.kinds {
		if k.Kind == u.GetKind() {
			return k, nil
		}
	}
	return nil, fmt.Errorf("aim-apiserver serves no kind %q (%s)", u.GetKind(), describe(u))
}

// clusterKind is a cluster-scoped kind, for requests that need no namespace.
func (s *aimStore) clusterKind() *kindStore {
	for _, k := range s.kinds {
		if !k.NamespaceScoped() {
			return k
		}
	}
	return s.kinds[0]
}

func schemaGVR(plural string) schema.GroupVersionResource {
	return v1alpha1.SchemeGroupVersion.WithResource(plural)
}

// GVR is the resource's group, version and resource.
func (k *kindStore) GVR() schema.GroupVersionResource {
	return v1alpha1.SchemeGroupVersion.WithResource(k.Resource)
}

// NamespaceScoped says whether objects of the kind live in namespaces.
func (k *kindStore) NamespaceScoped() bool { return k.Store.NamespaceScoped() }

func (k *kindStore) context(namespace string) context.Context {
	return genericapirequest.WithNamespace(context.Background(), namespace)
}

func (k *kindStore) key(ctx context.Context, namespace, name string) (string, error) {
	return k.Store.KeyFunc(genericapirequest.WithNamespace(ctx, namespace), name)
}

// decode turns an object read from the CRDs into the internal type, as the server decodes a request: the
// same field format check, conversion and defaults.
func (s *aimStore) decode(k *kindStore, u *unstructured.Unstructured) (runtime.Object, field.ErrorList, error) {
	data, err := json.Marshal(u)
	if err != nil {
		return nil, nil, err
	}
	if errs := s.format.CheckJSON(k.Resource, data); len(errs) > 0 {
		return nil, errs, nil
	}
	obj, _, err := apiserver.Codecs.UniversalDecoder(aim.SchemeGroupVersion).Decode(data, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("decoding %s %s: %w", k.Kind, describe(u), err)
	}
	return obj, nil, nil
}

// validate is what the server would reject in the object.
func (k *kindStore) validate(obj runtime.Object) field.ErrorList {
	m, _ := meta.Accessor(obj)
	return k.Validate(k.context(m.GetNamespace()), obj)
}

// get reads an object; found is false when there is none.
func (k *kindStore) get(ctx context.Context, namespace, name string) (runtime.Object, bool, error) {
	key, err := k.key(ctx, namespace, name)
	if err != nil {
		return nil, false, err
	}
	out := k.Store.New()
	if err := k.Store.Storage.Get(ctx, key, storage.GetOptions{}, out); err != nil {
		if storage.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("reading %s %s/%s from aim-apiserver's etcd: %w", k.Kind, namespace, name, err)
	}
	return out, true, nil
}

// list reads every object of the kind, in every namespace.
func (k *kindStore) list(ctx context.Context) ([]runtime.Object, error) {
	out := k.Store.NewList()
	if err := k.Store.Storage.GetList(ctx, k.Store.KeyRootFunc(ctx), storage.ListOptions{Recursive: true, Predicate: storage.Everything}, out); err != nil {
		return nil, fmt.Errorf("listing %s in aim-apiserver's etcd: %w", k.Kind, err)
	}
	return meta.ExtractList(out)
}

// create stores obj as it is.
func (k *kindStore) create(ctx context.Context, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	m.SetResourceVersion("")
	key, err := k.key(ctx, m.GetNamespace(), m.GetName())
	if err != nil {
		return err
	}
	if err := k.Store.Storage.Create(ctx, key, obj, k.Store.New(), 0, false); err != nil {
		return fmt.Errorf("writing %s %s into aim-apiserver's etcd: %w", k.Kind, describe(m), err)
	}
	return nil
}

// replaceFromSource makes the stored object with uid carry the source's metadata and spec; the status the
// controller wrote since is kept.
func (k *kindStore) replaceFromSource(ctx context.Context, src runtime.Object, uid types.UID) error {
	m, err := meta.Accessor(src)
	if err != nil {
		return err
	}
	key, err := k.key(ctx, m.GetNamespace(), m.GetName())
	if err != nil {
		return err
	}
	return k.Store.Storage.GuaranteedUpdate(ctx, key, k.Store.New(), false, &storage.Preconditions{UID: &uid},
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			next := src.DeepCopyObject()
			copyStatus(next, cur)
			nm, _ := meta.Accessor(next)
			cm, _ := meta.Accessor(cur)
			nm.SetResourceVersion(cm.GetResourceVersion())
			return next, nil, nil
		}, false, nil)
}

// remove deletes the stored object with uid, whatever its finalizers: used to undo a copy that never served.
// It reports whether there was one.
func (k *kindStore) remove(ctx context.Context, namespace, name string, uid types.UID) (bool, error) {
	key, err := k.key(ctx, namespace, name)
	if err != nil {
		return false, err
	}
	err = k.Store.Storage.Delete(ctx, key, k.Store.New(), &storage.Preconditions{UID: &uid}, storage.ValidateAllObjectFunc,
		false, nil, storage.DeleteOptions{})
	switch {
	case err == nil:
		return true, nil
	case storage.IsNotFound(err) || storage.IsInvalidObj(err):
		// Not there, or another object's (the UID precondition failed): no copy of this one to remove.
		return false, nil
	}
	return false, fmt.Errorf("removing %s %s/%s from aim-apiserver's etcd: %w", k.Kind, namespace, name, err)
}

// copyStatus sets dst's Status to src's; every AIM kind has one (resource.Definition checks it).
func copyStatus(dst, src runtime.Object) {
	reflect.ValueOf(dst).Elem().FieldByName("Status").Set(reflect.ValueOf(src).Elem().FieldByName("Status"))
}

type named interface {
	GetNamespace() string
	GetName() string
}

func describe(o named) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// removeOrphans removes from aim-apiserver's etcd the objects of namespaces that no longer exist. They appear when
// a namespace is deleted while the group is served elsewhere (after a rollback, say): the namespace controller
// deleted the CRDs' objects, not aim-apiserver's, whose controller would otherwise retry them forever and whose
// names a new namespace of the same name would inherit. With dryRun they are only reported.
func (m *migrator) removeOrphans(ctx context.Context, namespaceExists func(context.Context, string) (bool, error), dryRun bool) error {
	exists := map[string]bool{}
	removed := 0
	for _, k := range m.store.kinds {
		if !k.NamespaceScoped() {
			continue
		}
		items, err := k.list(ctx)
		if err != nil {
			return err
		}
		for _, obj := range items {
			o, err := meta.Accessor(obj)
			if err != nil {
				return err
			}
			ns := o.GetNamespace()
			found, seen := exists[ns]
			if !seen {
				if found, err = namespaceExists(ctx, ns); err != nil {
					return err
				}
				exists[ns] = found
			}
			if found {
				continue
			}
			if dryRun {
				m.logf("  %s %s/%s: its namespace no longer exists; would be removed from aim-apiserver's etcd", k.Kind, ns, o.GetName())
				continue
			}
			ok, err := k.remove(ctx, ns, o.GetName(), o.GetUID())
			if err != nil {
				return err
			}
			if ok {
				removed++
				m.logf("  removed %s %s/%s from aim-apiserver's etcd: its namespace no longer exists", k.Kind, ns, o.GetName())
			}
		}
	}
	if removed > 0 {
		m.logf("removed %d objects of deleted namespaces from aim-apiserver's etcd", removed)
	}
	return nil
}
