package aim

// GetCachingMode returns the caching mode a service's spec means, as aim-engine normalizes it and the controller
// reads it (v1alpha1.AIMServiceSpec.GetCachingMode): the legacy Never means Dedicated; the legacy Auto and Always,
// an absent mode and any other value mean Shared.
func (spec *AIMServiceSpec) GetCachingMode() AIMCachingMode {
	if c := spec.Caching; c != nil {
		switch c.Mode {
		case AIMCachingModeDedicated, AIMCachingModeNever:
			return AIMCachingModeDedicated
		}
	}
	return AIMCachingModeShared
}

// Autoscaled reports whether KEDA scales the service, by aim-engine's rule: any of autoScaling, minReplicas and
// maxReplicas is set; replicas is then not read (kserve.ScaleOf).
func (spec *AIMServiceSpec) Autoscaled() bool {
	return spec.AutoScaling != nil || spec.MinReplicas != nil || spec.MaxReplicas != nil
}
