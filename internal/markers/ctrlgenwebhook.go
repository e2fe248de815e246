package markers

import (
	"errors"
	"fmt"
	"strings"
)

// KindWebhooks is a "+ctrlgen:webhook:" value: the webhooks a kind gets,
// with the paths, names and rules kubebuilder's "create webhook" would
// give them.
type KindWebhooks struct {
	Defaulting, Validation, Conversion bool
}

var kindWebhookArgs = []string{"defaulting", "validation", "conversion"}

func kindWebhooks(arg string) (KindWebhooks, error) {
	var w KindWebhooks
	rest, ok := strings.CutPrefix(arg, ":")
	if !ok || strings.TrimSpace(rest) == "" {
		return w, errors.New("needs what to serve after ':'")
	}
	seen := map[string]bool{}
	for _, f := range strings.Split(rest, ",") {
		f = strings.TrimSpace(f)
		if seen[f] {
			return w, fmt.Errorf("%s given twice", f)
		}
		seen[f] = true
		switch f {
		case "defaulting":
			w.Defaulting = true
		case "validation":
			w.Validation = true
		case "conversion":
			w.Conversion = true
		default:
			return w, unknownArg(f, kindWebhookArgs...)
		}
	}
	return w, nil
}

// KindWebhook defines "+ctrlgen:webhook:".
var KindWebhook = DefineArgs("ctrlgen:webhook", TargetType, kindWebhooks,
	"+ctrlgen:webhook:defaulting,validation,conversion (any of them)",
	"serve webhooks for the kind: defaulting (a mutating webhook calling Default), validation (a validating webhook calling ValidateCreate, ValidateUpdate and ValidateDelete), conversion (the CRD's conversion webhook, the storage version as hub)")
