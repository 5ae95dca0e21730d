package v1alpha1

// Well-known labels and annotations.
const (
	// AnnotationReconciliationPaused set to "true" stops the controller from touching an object and its status.
	AnnotationReconciliationPaused = "aim.eai.amd.com/reconciliation-paused"
	// LabelManagedBy marks objects the controller created.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedByValue is aim-apiserver's value of LabelManagedBy.
	ManagedByValue = "aim-apiserver"
)

// Paused reports whether an object's annotations pause its reconciliation.
func Paused(annotations map[string]string) bool {
	return annotations[AnnotationReconciliationPaused] == "true"
}
