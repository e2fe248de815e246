package cache

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type metav1ManagedFieldsEntry = metav1.ManagedFieldsEntry

func cm(ns, name, data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string]string{"v": data},
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
