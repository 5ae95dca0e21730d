// Package health reports the objects the controller made, and their pods, as status components with
// aim-engine's reasons: Jobs (download, check-size, discovery), their pods, the predictor pods of an
// InferenceService, the InferenceService itself and KEDA's HorizontalPodAutoscaler. Every rule is written once,
// so one registry answer or one pod state gives one reason and one state for every kind (a pull refused with 403
// is ImagePullAuthFailure for a download pod and a predictor pod alike).
//
// A Job is running, complete, or failed (backoff limit, deadline, eviction). Its pods are: missing, images that
// cannot be pulled (auth, not found, other), failed attempts (classified from the container's termination
// message: source not found, authentication, disk full, out of memory, deadline, eviction), readiness, and what
// keeps a pending pod pending (the latest scheduling, mount or sandbox event).
//
// The termination message stands in for aim-engine's reading of the last log lines: the controller's
// containers use terminationMessagePolicy FallbackToLogsOnError, so the message is the end of the log when
// the container wrote none, and no log access is needed. Text quoted from pods is redacted.
package health
