package aim

// MergeHardware is a custom template's hardware laid over its model's spec.custom.hardware, as aim-engine merges
// them (MergeHardware, internal/aimmodel/hardware.go): the template's GPU fields that are set (requests, model,
// resourceName, minVram) replace the model's one by one, and so do its CPU fields (a zero CPU request is unset);
// a template that sets only gpu.requests keeps the model's gpu.model. The model controller makes its templates by
// it, and admission advice reads the CPU it makes. The result shares nothing with either argument.
func MergeHardware(model, template *AIMHardwareRequirements) *AIMHardwareRequirements {
	if model == nil {
		return template.DeepCopy()
	}
	out := model.DeepCopy()
	if template == nil {
		return out
	}
	if g := template.GPU; g != nil {
		if out.GPU == nil {
			out.GPU = &AIMGpuRequirements{}
		}
		if g.Requests != 0 {
			out.GPU.Requests = g.Requests
		}
		// A GPU is asked for by model or by minVram, never both (the API refuses a template with both): the one
		// the template names replaces the model's either way.
		if g.Model != "" {
			out.GPU.Model, out.GPU.MinVRAM = g.Model, nil
		}
		if g.ResourceName != "" {
			out.GPU.ResourceName = g.ResourceName
		}
		if g.MinVRAM != nil {
			minVRAM := *g.MinVRAM
			out.GPU.Model, out.GPU.MinVRAM = "", &minVRAM
		}
	}
	if c := template.CPU; c != nil {
		if out.CPU == nil {
			out.CPU = &AIMCpuRequirements{}
		}
		if requests := c.Requests.Amount(); !requests.IsZero() {
			out.CPU.Requests = c.Requests
		}
		if c.Limits != nil {
			limits := *c.Limits
			out.CPU.Limits = &limits
		}
	}
	return out
}
