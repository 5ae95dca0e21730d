package validation_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/install"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
)

// validateAll runs every validation the server would run on an object: create, update against itself, and a
// status write.
func validateAll(obj runtime.Object) field.ErrorList {
	var errs field.ErrorList
	switch o := obj.(type) {
	case *aim.AIMService:
		errs = append(errs, validation.ValidateAIMService(o)...)
		errs = append(errs, validation.ValidateAIMServiceUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMServiceStatus(o)...)
	case *aim.AIMServiceTemplate:
		errs = append(errs, validation.ValidateAIMServiceTemplate(o)...)
		errs = append(errs, validation.ValidateAIMServiceTemplateUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMServiceTemplateStatus(&o.Status)...)
	case *aim.AIMClusterServiceTemplate:
		errs = append(errs, validation.ValidateAIMClusterServiceTemplate(o)...)
		errs = append(errs, validation.ValidateAIMClusterServiceTemplateUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMServiceTemplateStatus(&o.Status)...)
	case *aim.AIMModel:
		errs = append(errs, validation.ValidateAIMModel(o)...)
		errs = append(errs, validation.ValidateAIMModelUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMModelStatus(&o.Status)...)
	case *aim.AIMClusterModel:
		errs = append(errs, validation.ValidateAIMClusterModel(o)...)
		errs = append(errs, validation.ValidateAIMClusterModelUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMModelStatus(&o.Status)...)
	case *aim.AIMRuntimeConfig:
		errs = append(errs, validation.ValidateAIMRuntimeConfig(o)...)
		errs = append(errs, validation.ValidateAIMRuntimeConfigUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMRuntimeConfigStatus(&o.Status)...)
	case *aim.AIMClusterRuntimeConfig:
		errs = append(errs, validation.ValidateAIMClusterRuntimeConfig(o)...)
		errs = append(errs, validation.ValidateAIMClusterRuntimeConfigUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMRuntimeConfigStatus(&o.Status)...)
	case *aim.AIMTemplateCache:
		errs = append(errs, validation.ValidateAIMTemplateCache(o)...)
		errs = append(errs, validation.ValidateAIMTemplateCacheUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMTemplateCacheStatus(o)...)
	case *aim.AIMArtifact:
		errs = append(errs, validation.ValidateAIMArtifact(o)...)
		errs = append(errs, validation.ValidateAIMArtifactUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMArtifactStatus(o)...)
	case *aim.AIMClusterModelSource:
		errs = append(errs, validation.ValidateAIMClusterModelSource(o)...)
		errs = append(errs, validation.ValidateAIMClusterModelSourceUpdate(o, o.DeepCopy())...)
		errs = append(errs, validation.ValidateAIMClusterModelSourceStatus(o)...)
	}
	return errs
}

// FuzzDecodeDefaultValidate feeds arbitrary bytes through the server's decode path (JSON or YAML, defaulting,
// conversion to the internal version) and every validation. It must never panic, and every error must name
// the field it is about, because the user is told to fix that field.
func FuzzDecodeDefaultValidate(f *testing.F) {
	samples, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "artifacts", "samples", "*.yaml"))
	if err != nil || len(samples) == 0 {
		f.Fatalf("no sample manifests to seed the corpus: %v", err)
	}
	for _, s := range samples {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"x"},"spec":{"model":{}}}`))
	f.Add([]byte(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMArtifact","spec":{"sourceUri":"ftp://x","size":"-1"}}`))
	f.Add([]byte(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterModelSource","spec":{"filters":[{"image":"*","versions":["~>"]}]}}`))

	scheme := runtime.NewScheme()
	install.Install(scheme)
	decoder := serializer.NewCodecFactory(scheme).UniversalDecoder(aim.SchemeGroupVersion)

	f.Fuzz(func(t *testing.T, data []byte) {
		obj, _, err := decoder.Decode(data, nil, nil)
		if err != nil {
			return
		}
		for _, e := range validateAll(obj) {
			if e.Field == "" {
				t.Errorf("error without a field path: %v", e)
			}
		}
	})
}
