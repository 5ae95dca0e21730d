// Package v1alpha1 is the wire version of the aim.eai.amd.com API: the types users write in manifests,
// their defaults and their conversions to the internal version. v1alpha1 is also the storage version.
//
// +k8s:openapi-gen=true
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/aim-apiserver/aim-apiserver/pkg/apis/aim
// +k8s:defaulter-gen=TypeMeta
// +groupName=aim.eai.amd.com
package v1alpha1
