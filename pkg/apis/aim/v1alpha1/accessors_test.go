package v1alpha1

import "testing"

// setThenGet sets a zero status of type S through SetStatus and returns what it stores.
func setThenGet[S any, P interface {
	*S
	SetStatus(string)
}](get func(*S) AIMStatus) func(string) AIMStatus {
	return func(status string) AIMStatus {
		var s S
		P(&s).SetStatus(status)
		return get(&s)
	}
}

// TestSetStatusWords pins the summary status each kind stores for what the controller derives: an AIMService says
// Starting and Running where the other kinds say Progressing and Ready, as aim-engine's AIMServiceStatus.SetStatus.
func TestSetStatusWords(t *testing.T) {
	kinds := map[string]func(string) AIMStatus{
		"AIMModel":              setThenGet((*AIMModelStatus).GetAIMStatus),
		"AIMServiceTemplate":    setThenGet((*AIMServiceTemplateStatus).GetAIMStatus),
		"AIMService":            setThenGet((*AIMServiceStatus).GetAIMStatus),
		"AIMTemplateCache":      setThenGet((*AIMTemplateCacheStatus).GetAIMStatus),
		"AIMArtifact":           setThenGet((*AIMArtifactStatus).GetAIMStatus),
		"AIMClusterModelSource": setThenGet(func(s *AIMClusterModelSourceStatus) AIMStatus { return s.Status }),
	}
	for kind, set := range kinds {
		for _, derived := range []AIMStatus{AIMStatusPending, AIMStatusProgressing, AIMStatusReady, AIMStatusDegraded, AIMStatusFailed, AIMStatusNotAvailable} {
			want := derived
			if kind == "AIMService" {
				switch derived {
				case AIMStatusProgressing:
					want = AIMStatusStarting
				case AIMStatusReady:
					want = AIMStatusRunning
				}
			}
			if got := set(string(derived)); got != want {
				t.Errorf("%s: SetStatus(%s) stores %s, want %s", kind, derived, got, want)
			}
		}
	}
}

// TestGetCachingMode pins aim-engine's normalization of the legacy modes.
func TestGetCachingMode(t *testing.T) {
	for mode, want := range map[AIMCachingMode]AIMCachingMode{
		"": AIMCachingModeShared, AIMCachingModeAuto: AIMCachingModeShared, AIMCachingModeAlways: AIMCachingModeShared,
		AIMCachingModeShared: AIMCachingModeShared, AIMCachingModeDedicated: AIMCachingModeDedicated, AIMCachingModeNever: AIMCachingModeDedicated,
	} {
		spec := AIMServiceSpec{Caching: &AIMServiceCaching{Mode: mode}}
		if got := spec.GetCachingMode(); got != want {
			t.Errorf("mode %q = %q, want %q", mode, got, want)
		}
	}
	if got := (&AIMServiceSpec{}).GetCachingMode(); got != AIMCachingModeShared {
		t.Errorf("no caching = %q, want %q", got, AIMCachingModeShared)
	}
}

// TestShouldCreateTemplates: a model makes templates unless told not to.
func TestShouldCreateTemplates(t *testing.T) {
	no, yes := false, true
	for _, tc := range []struct {
		discovery *AIMModelDiscoveryConfig
		want      bool
	}{
		{nil, true},
		{&AIMModelDiscoveryConfig{}, true},
		{&AIMModelDiscoveryConfig{CreateServiceTemplates: &yes}, true},
		{&AIMModelDiscoveryConfig{CreateServiceTemplates: &no}, false},
	} {
		spec := AIMModelSpec{Discovery: tc.discovery}
		if got := spec.ShouldCreateTemplates(); got != tc.want {
			t.Errorf("discovery %+v: ShouldCreateTemplates() = %v, want %v", tc.discovery, got, tc.want)
		}
	}
}
