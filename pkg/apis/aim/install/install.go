// Package install registers the aim.eai.amd.com API group, internal and versioned, with a scheme.
package install

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// Install registers the API group and sets the version priority; a scheme without a priority makes
// InstallAPIGroup panic.
func Install(scheme *runtime.Scheme) {
	utilruntime.Must(aim.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	utilruntime.Must(scheme.SetVersionPriority(v1alpha1.SchemeGroupVersion))
}
