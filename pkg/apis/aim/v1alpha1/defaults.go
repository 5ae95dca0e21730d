package v1alpha1

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// Defaults are declared with +default markers on the fields, so that the same value is applied on decode
// (defaulter-gen) and published in the OpenAPI schema. These constants name the values for the controllers,
// which fall back to them for objects built in memory; TestDefaultsMatchConstants keeps both equal.
// Runtime configs deliberately have no defaults: a stored default would count as "set" and override the
// cluster config (see AIMRuntimeConfigSpec).
const (
	DefaultReplicas                 = aim.DefaultReplicas
	DefaultPVCHeadroomPercent       = aim.DefaultPVCHeadroomPercent
	DefaultMetricsBackend           = "opentelemetry"
	DefaultRegistry                 = "docker.io"
	DefaultSyncInterval             = time.Hour
	DefaultMaxModels          int32 = 100
	DefaultModelDownloadImage       = "ghcr.io/silogen/aim-artifact-downloader:0.2.0"
	DefaultGatewayGroup             = "gateway.networking.k8s.io"
	DefaultGatewayKind              = "Gateway"
)

func addDefaultingFuncs(scheme *runtime.Scheme) error {
	return RegisterDefaults(scheme)
}

// SetDefaults_AIMServiceSpec defaults what a marker cannot: storage is shared with runtime configs, which
// take no defaults, so the headroom is defaulted only for a service's own storage.
func SetDefaults_AIMServiceSpec(obj *AIMServiceSpec) {
	if obj.Storage != nil && obj.Storage.PVCHeadroomPercent == nil {
		obj.Storage.PVCHeadroomPercent = ptr.To(DefaultPVCHeadroomPercent)
	}
}
