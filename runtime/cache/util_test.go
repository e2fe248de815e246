package cache

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type metav1ManagedFieldsEntry = metav1.ManagedFieldsEntry

func itoa(i int) string { return strconv.Itoa(i) }
