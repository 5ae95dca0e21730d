package service

import (
	"fmt"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
)

// Labels on the workloads of a service.
const (
	LabelMetric    = "aim.eai.amd.com/metric"
	LabelPrecision = "aim.eai.amd.com/precision"
	labelComponent = "app.kubernetes.io/component"

	// LabelInferenceService is the label KServe puts on predictor pods.
	LabelInferenceService = "serving.kserve.io/inferenceservice"
)

// predictorSuffix and the namespace make up KServe's host name label of the predictor, which must fit in 63
// characters.
const predictorSuffix = "-predictor-"

// minWorkloadName is the shortest InferenceService name aim-engine allows: a character, a dash and the hash.
// Namespaces longer than 42 characters leave less room; aim-engine then creates no InferenceService at all,
// this controller still creates one of this length (KServe's host label of it is longer than 63 characters).
const minWorkloadName = 10

// WorkloadName is the name of a service's InferenceService, as aim-engine derives it: the service's name and a
// hash of the namespace, short enough that KServe's "<name>-predictor-<namespace>" host label fits in 63
// characters.
func WorkloadName(svc *aimv1.AIMService) string {
	limit := naming.MaxLength - len(predictorSuffix) - len(svc.Namespace)
	return naming.DerivedName([]string{svc.Name}, naming.HashLength, max(limit, minWorkloadName), svc.Namespace)
}

// RouteName is the name of a service's HTTPRoute, as aim-engine derives it: the service's name and a hash of
// the namespace, unlike the InferenceService's name not shortened for KServe's host label.
func RouteName(svc *aimv1.AIMService) string {
	return naming.DerivedName([]string{svc.Name}, naming.HashLength, naming.MaxLength, svc.Namespace)
}

// Endpoint is where the service answers inside the cluster (F4): address, the URL KServe reports in the
// InferenceService's status.address (under the cluster's domain, with the port of a headless predictor Service),
// else the predictor Service's URL under the default domain until KServe reports one. The routed path is added
// later (Plan.finalStatus).
func Endpoint(svc *aimv1.AIMService, address string) *aimv1.AIMServiceEndpoint {
	if address == "" {
		address = fmt.Sprintf("http://%s.%s.svc.cluster.local", kserve.PredictorName(WorkloadName(svc)), svc.Namespace)
	}
	return &aimv1.AIMServiceEndpoint{Internal: address}
}
