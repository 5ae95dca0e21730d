package aim

// Defaults that admission advice reads as well as the controller: the versioned API applies them on decode
// (+default markers) and names them (v1alpha1.DefaultReplicas), so a value equal to one may be the default
// rather than something the user wrote.
const (
	DefaultReplicas           int32 = 1
	DefaultPVCHeadroomPercent int32 = 10
)
