package apiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/install"
)

var (
	// Scheme knows the internal and versioned AIM types and the meta types every API server serves. It is the
	// only package-level state: it is filled once, here, and read-only afterwards.
	Scheme = newScheme()
	// Codecs encode and decode with Scheme.
	Codecs = serializer.NewCodecFactory(Scheme)
)

func newScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	// Options and status types every group needs (DeleteOptions, Status, ...), else requests fail with
	// "no kind is registered".
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Group: "", Version: "v1"}
	scheme.AddUnversionedTypes(unversioned,
		&metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	return scheme
}
