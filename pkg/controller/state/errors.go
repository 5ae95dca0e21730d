// Package state derives the status of every AIM kind from the health of its components: errors sorted into
// six categories, one <Component>Ready condition per component, the parent conditions ConfigValid, AuthValid
// and DependenciesReachable, and Ready with the overall status. It is pure: observations in, conditions out.
package state

import (
	"context"
	"errors"
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Category sorts errors by who can fix them and whether retrying helps.
type Category string

const (
	// Infrastructure: the API, the network or a registry is unreachable or overloaded; retried with backoff.
	Infrastructure Category = "Infrastructure"
	// Auth: credentials are missing or not allowed; the user must fix them.
	Auth Category = "Auth"
	// MissingUpstream: something the user references does not exist (yet).
	MissingUpstream Category = "MissingUpstream"
	// MissingDownstream: something the controller creates does not exist yet; it is being created.
	MissingDownstream Category = "MissingDownstream"
	// InvalidSpec: the object asks for something that cannot work; the user must fix it.
	InvalidSpec Category = "InvalidSpec"
	// ResourceExhaustion: a quota or capacity limit is hit.
	ResourceExhaustion Category = "ResourceExhaustion"
)

// Error is an error with its category and a condition reason.
type Error struct {
	Category Category
	Reason   string
	Err      error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// NewError returns a categorized error with a reason and message.
func NewError(c Category, reason, format string, args ...any) *Error {
	return &Error{Category: c, Reason: reason, Err: fmt.Errorf(format, args...)}
}

// UpstreamError marks the error of a lookup of something the user references: NotFound then means
// MissingUpstream (ReferenceNotFound) rather than "being created".
func UpstreamError(err error) error {
	if err == nil {
		return nil
	}
	if apierrors.IsNotFound(err) {
		return &Error{Category: MissingUpstream, Reason: ReasonReferenceNotFound, Err: err}
	}
	return err
}

// Categorize sorts an error. Errors from the API are sorted by status; network errors and timeouts are
// Infrastructure; anything unknown is treated as Infrastructure, so it is retried rather than ignored.
func Categorize(err error) Category {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Category
	case apierrors.IsNotFound(err):
		return MissingDownstream
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		// The namespace is going and the object with it: nothing for the user to fix.
		return MissingDownstream
	case apierrors.IsUnauthorized(err), apierrors.IsForbidden(err):
		return Auth
	case apierrors.IsConflict(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsTooManyRequests(err), apierrors.IsInternalError(err), apierrors.IsServiceUnavailable(err),
		apierrors.IsUnexpectedServerError(err):
		return Infrastructure
	case apierrors.IsInvalid(err), apierrors.IsAlreadyExists(err), apierrors.IsBadRequest(err),
		apierrors.IsMethodNotSupported(err), apierrors.IsNotAcceptable(err), apierrors.IsRequestEntityTooLargeError(err):
		return InvalidSpec
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code := status.Status().Code
		switch {
		case code >= 500:
			return Infrastructure
		case code >= 400:
			return InvalidSpec
		}
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) {
		return Infrastructure
	}
	return Infrastructure
}

// reasonOf is the condition reason of an error.
func reasonOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Reason != "" {
		return e.Reason
	}
	switch Categorize(err) {
	case Auth:
		return ReasonAuthError
	case InvalidSpec:
		return ReasonInvalidSpec
	case MissingUpstream:
		return ReasonReferenceNotFound
	case MissingDownstream:
		return ReasonResourceNotReady
	case ResourceExhaustion:
		return ReasonResourceExhausted
	default:
		return ReasonInfrastructureError
	}
}
