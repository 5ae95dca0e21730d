package aim

// Field selector labels beyond metadata.name and metadata.namespace. The registry computes their values
// (pkg/registry/aim/<kind>) and the versioned scheme accepts exactly these labels (v1alpha1/register.go).
const (
	FieldStatus       = "status.status"
	FieldModelName    = "spec.modelName"
	FieldImage        = "spec.image"
	FieldTemplateName = "spec.templateName"
	FieldSourceURI    = "spec.sourceUri"
)

// SelectableFields returns the extra field selector labels of a kind.
func SelectableFields(kind string) []string {
	switch kind {
	case "AIMServiceTemplate", "AIMClusterServiceTemplate":
		return []string{FieldModelName, FieldStatus}
	case "AIMModel", "AIMClusterModel":
		return []string{FieldImage, FieldStatus}
	case "AIMTemplateCache":
		return []string{FieldTemplateName, FieldStatus}
	case "AIMArtifact":
		return []string{FieldSourceURI, FieldStatus}
	default:
		return []string{FieldStatus}
	}
}
