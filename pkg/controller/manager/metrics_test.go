package manager

import "testing"

func TestResourceOf(t *testing.T) {
	for path, want := range map[string][2]string{
		"/api/v1/namespaces/team/events":                                         {"", "events"},
		"/api/v1/namespaces/team":                                                {"", "namespaces"},
		"/apis/batch/v1/namespaces/aim-system/jobs/discover-x-1":                 {"batch", "jobs"},
		"/apis/aim.eai.amd.com/v1alpha1/namespaces/team/aimservices/chat/status": {"aim.eai.amd.com", "aimservices/status"},
		"/apis/aim.eai.amd.com/v1alpha1/aimclustermodels/qwen":                   {"aim.eai.amd.com", "aimclustermodels"},
		"/apis/serving.kserve.io/v1beta1/namespaces/team/inferenceservices/chat": {"serving.kserve.io", "inferenceservices"},
		"/healthz": {"", "other"},
	} {
		if g, r := resourceOf(path); g != want[0] || r != want[1] {
			t.Errorf("%s: %q %q, want %q %q", path, g, r, want[0], want[1])
		}
	}
}
