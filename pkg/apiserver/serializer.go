package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// protobufMediaType is offered by the default codec factory, but AIM types have no protobuf encoding.
const protobufMediaType = runtime.ContentTypeProtobuf

// negotiatedSerializer offers every media type of Codecs except protobuf. Clients that prefer protobuf and
// accept JSON (kube-controller-manager's namespace and garbage-collector controllers, kubectl) then get JSON,
// instead of a 500 from a protobuf encoder that cannot encode AIM types.
type negotiatedSerializer struct {
	runtime.NegotiatedSerializer
}

// NegotiatedSerializer is the serializer the server uses for AIM types and its own endpoints.
func NegotiatedSerializer() runtime.NegotiatedSerializer {
	return negotiatedSerializer{NegotiatedSerializer: Codecs}
}

func (s negotiatedSerializer) SupportedMediaTypes() []runtime.SerializerInfo {
	var out []runtime.SerializerInfo
	for _, info := range s.NegotiatedSerializer.SupportedMediaTypes() {
		if info.MediaType != protobufMediaType {
			out = append(out, info)
		}
	}
	return out
}
