package kserve

import (
	"strings"
	"testing"
)

func TestOfPredictorReplicaSet(t *testing.T) {
	for name, want := range map[string]string{
		"chat-predictor-6b8f9c":                  "chat", // KServe's raw Deployment chat-predictor
		"chat-predictor-00001-deployment-6b8f9c": "chat", // a Knative revision's
		"my-predictor-x-predictor-6b8f9c":        "my-predictor-x",
		"chat-6b8f9c":                            "", // not a predictor's
		"-predictor-6b8f9c":                      "",
	} {
		got, ok := OfPredictorReplicaSet(name)
		if got != want || ok != (want != "") {
			t.Errorf("OfPredictorReplicaSet(%q) = %q, %v; want %q", name, got, ok, want)
		}
		if ok && !strings.HasPrefix(name, PredictorName(got)+"-") {
			t.Errorf("%q is not a ReplicaSet name of PredictorName(%q)", name, got)
		}
	}
}

// TestOfHPA: the InferenceService of KEDA's HorizontalPodAutoscaler is found again from HPAName, and another
// HorizontalPodAutoscaler names none.
func TestOfHPA(t *testing.T) {
	for name, want := range map[string]string{
		HPAName("chat"):            "chat",
		HPAName("my-predictor"):    "my-predictor",
		"keda-hpa-chat":            "", // not a predictor's
		"chat-predictor":           "", // not KEDA's
		"other-hpa-chat-predictor": "",
	} {
		if got, ok := OfHPA(name); got != want || ok != (want != "") {
			t.Errorf("OfHPA(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}
