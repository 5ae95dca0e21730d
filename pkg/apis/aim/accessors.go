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
