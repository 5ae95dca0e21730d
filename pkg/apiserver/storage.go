package apiserver

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
	"github.com/aim-apiserver/aim-apiserver/pkg/storage/compression"
)

// EtcdPathPrefix is where AIM objects live in etcd.
const EtcdPathPrefix = "/registry/" + aim.GroupName

// NewEtcdOptions are the storage options of AIM objects: where they live in etcd, v1alpha1 as the storage
// version and protobuf as the storage encoding. The server and `aim-apiserver migrate`, which writes into the
// same storage, share them; both call ApplyStorageCodec once flags are parsed.
func NewEtcdOptions() *genericoptions.EtcdOptions {
	e := genericoptions.NewEtcdOptions(storagebackend.NewDefaultConfig(EtcdPathPrefix, nil))
	e.DefaultStorageMediaType = runtime.ContentTypeProtobuf
	return e
}

// ApplyStorageCodec sets the storage codec from --storage-media-type. k8s.io/apiserver's SimpleStorageFactory
// uses StorageConfig.Codec as it is, so without this the flag would be accepted and ignored. Objects are
// written in the chosen encoding and read in any: JSON written by an earlier release stays readable and is
// rewritten in the chosen encoding on its next update.
func ApplyStorageCodec(e *genericoptions.EtcdOptions) error {
	codec, versioner, err := serverstorage.NewStorageCodec(serverstorage.StorageCodecConfig{
		StorageMediaType:  e.DefaultStorageMediaType,
		StorageSerializer: Codecs,
		StorageVersion:    v1alpha1.SchemeGroupVersion,
		MemoryVersion:     aim.SchemeGroupVersion,
	})
	if err != nil {
		return fmt.Errorf("--storage-media-type: %w", err)
	}
	e.StorageConfig.Codec = codec
	e.StorageConfig.EncodeVersioner = versioner
	return nil
}

// AddStorageCompressionFlag registers --storage-compression, which the server and `aim-apiserver migrate`
// (writing into the same storage) share.
func AddStorageCompressionFlag(fs *pflag.FlagSet, mode *string) {
	fs.StringVar(mode, "storage-compression", *mode, fmt.Sprintf("How AIM objects are compressed in etcd: one of %v. "+
		"Values in either form are read; an update rewrites a value in the chosen one.", compression.Modes))
}

// StoredKind is the storage of one AIM kind as the server opens it, for a tool that reads and writes the store
// beside the server (`aim-apiserver migrate`): the registry's store without its strategies, and the checks
// the server would apply to what the tool writes.
type StoredKind struct {
	Resource, Kind string
	Store          *genericregistry.Store
	// Validate is what the server's create and status update would reject in obj.
	Validate func(ctx context.Context, obj runtime.Object) field.ErrorList
}

// OpenStorage opens the storage of every AIM kind with getter (ApplyStorageCodec's codec, compression and
// encryption at rest). The caller destroys the stores.
func OpenStorage(getter generic.RESTOptionsGetter) ([]StoredKind, error) {
	var kinds []StoredKind
	for _, r := range Resources() {
		main, status, err := r.NewStorage(Scheme, getter)
		if err != nil {
			for _, k := range kinds {
				k.Store.Destroy()
			}
			return nil, fmt.Errorf("opening the storage of %s: %w", r.ResourceName(), err)
		}
		kinds = append(kinds, StoredKind{Resource: r.ResourceName(), Kind: r.KindName(), Store: main.Store,
			Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
				return resource.ValidateStored(ctx, main, status, obj)
			}})
	}
	return kinds, nil
}
