package migrate

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// crdStore writes custom resources into kube-apiserver's etcd, where the CRDs keep them as JSON under
// <prefix>/<group>/<resource>/[<namespace>/]<name>. Creating an object through the API always gives it a new
// UID; writing it here is the only way to give a rolled-back object the UID its children's owner references
// name.
type crdStore struct {
	stores  map[string]storage.Interface
	destroy []factory.DestroyFunc
}

func newCRDStore(o KubeEtcdOptions, resources []string) (*crdStore, error) {
	if len(o.Servers) == 0 {
		return nil, errors.New("--kube-etcd-servers is required to roll back after the switch: the CRD objects can only get their UIDs " +
			"back in kube-apiserver's etcd")
	}
	cfg := storagebackend.NewDefaultConfig(o.Prefix, unstructured.UnstructuredJSONScheme)
	cfg.Transport = storagebackend.TransportConfig{ServerList: o.Servers, TrustedCAFile: o.CAFile, CertFile: o.CertFile, KeyFile: o.KeyFile}
	c := &crdStore{stores: map[string]storage.Interface{}}
	for _, res := range resources {
		gr := schema.GroupResource{Group: aim.GroupName, Resource: res}
		s, destroy, err := factory.Create(*cfg.ForResource(gr),
			func() runtime.Object { return &unstructured.Unstructured{} },
			func() runtime.Object { return &unstructured.UnstructuredList{} },
			"/"+aim.GroupName+"/"+res)
		if err != nil {
			c.close()
			return nil, fmt.Errorf("opening kube-apiserver's etcd for %s: %w", res, err)
		}
		c.stores[res], c.destroy = s, append(c.destroy, destroy)
	}
	return c, nil
}

func (c *crdStore) close() {
	for _, d := range c.destroy {
		d()
	}
}

// put writes obj as the CRDs store it, keeping its UID: created when absent, replaced when an object of the
// same UID is there (left over from the CRDs before the migration).
func (c *crdStore) put(ctx context.Context, res string, obj *unstructured.Unstructured) error {
	s, ok := c.stores[res]
	if !ok {
		return fmt.Errorf("no storage for %s", res)
	}
	key := "/" + aim.GroupName + "/" + res + "/" + obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		key = "/" + aim.GroupName + "/" + res + "/" + ns + "/" + obj.GetName()
	}
	obj = obj.DeepCopy()
	obj.SetResourceVersion("")
	cur := &unstructured.Unstructured{}
	err := s.Get(ctx, key, storage.GetOptions{}, cur)
	switch {
	case storage.IsNotFound(err):
		return s.Create(ctx, key, obj, &unstructured.Unstructured{}, 0)
	case err != nil:
		return err
	case cur.GetUID() != obj.GetUID():
		return fmt.Errorf("%s %s exists in the CRDs' storage with uid %s, not %s", res, describe(obj), cur.GetUID(), obj.GetUID())
	}
	uid := obj.GetUID()
	return s.GuaranteedUpdate(ctx, key, &unstructured.Unstructured{}, false, &storage.Preconditions{UID: &uid},
		func(runtime.Object, storage.ResponseMeta) (runtime.Object, *uint64, error) {
			return obj.DeepCopy(), nil, nil
		}, nil)
}
