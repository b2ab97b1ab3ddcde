// torch.compile(options=...) is checked as PyTorch's _TorchCompileInductorWrapper.apply_options
// checks it when torch.compile is called: every key ("-" read as "_") must be an Inductor config
// option, and a value must be an instance of the option's declared type (options typed with a
// generic such as Optional[...] are not checked). Kiln runs its own backend and ignores the
// options' effects, but a program that passes a wrong one gets PyTorch's RuntimeError.
#include "engine/capture/inductor_options.h"

#include <map>
#include <sstream>

namespace kiln::capture {

namespace {

// torch._inductor.config.get_config_copy() of PyTorch 2.11.0 (543 options), each with the
// type config.get_type() gives it: b bool, i int, f float, s str, n NoneType, t tuple, l list,
// * a generic type (not checked).
const char* const kOptions =
    "TYPE_CHECKING:b _cache_config_ignore_prefix:* _collective.auto_select:b "
    "_collective.one_shot_all_reduce_threshold_bytes:i _fuse_ddp_bucket_size:i _fuse_ddp_communication:b "
    "_fuse_ddp_communication_passes:* _micro_pipeline_tp:b _post_fusion_custom_pass:* "
    "_pre_fusion_custom_pass:* _profile_var:s _raise_error_for_testing:b _save_config_ignore:* "
    "_use_fp64_for_unbacked_floats:b add_pre_grad_passes:* aggressive_fusion:b alignment_asserts:b "
    "allow_buffer_reuse:b always_complex_memory_overlap_TESTING_ONLY:b always_keep_tensor_constants:b "
    "annotate_training:b aot_inductor.allow_stack_allocation:b aot_inductor.aoti_shim_library:* "
    "aot_inductor.aoti_shim_library_path:* aot_inductor.check_lowerbound:b "
    "aot_inductor.compile_wrapper_opt_level:s aot_inductor.cross_target_platform:* "
    "aot_inductor.custom_op_libs:* aot_inductor.custom_ops_to_c_shims:* aot_inductor.debug_compile:b "
    "aot_inductor.debug_intermediate_value_printer:* aot_inductor.debug_symbols:b "
    "aot_inductor.dump_aoti_minifier:b aot_inductor.dynamic_linkage:b aot_inductor.embed_kernel_binary:* "
    "aot_inductor.emit_multi_arch_kernel:* aot_inductor.enable_lto:b aot_inductor.filtered_kernel_names:n "
    "aot_inductor.force_mmap_weights:b aot_inductor.link_libtorch:b aot_inductor.metadata:* "
    "aot_inductor.model_name_for_generated_files:* aot_inductor.output_path:s aot_inductor.package:b "
    "aot_inductor.package_constants_in_so:b aot_inductor.package_constants_on_disk_format:* "
    "aot_inductor.package_cpp_only:* aot_inductor.precompile_headers:b aot_inductor.presets:* "
    "aot_inductor.raise_error_on_ignored_optimization:b aot_inductor.repro_level:i "
    "aot_inductor.serialized_in_spec:s aot_inductor.serialized_out_spec:s "
    "aot_inductor.use_consts_asm_build:b aot_inductor.use_minimal_arrayref_interface:b "
    "aot_inductor.use_runtime_constant_folding:b aot_inductor.weight_use_caching_allocator:b "
    "aot_inductor_mode.compile_standalone:b apply_gumbel_max_trick:b assert_indirect_indexing:b "
    "assume_32bit_indexing:b assume_aligned_inputs:b assume_unaligned_fallback_output:b "
    "aten_distributed_optimizations.bucket_exposed_first:b "
    "aten_distributed_optimizations.collective_bucketing:* "
    "aten_distributed_optimizations.collective_estimator:* "
    "aten_distributed_optimizations.compute_overlap_multipler:* "
    "aten_distributed_optimizations.custom_runtime_estimation:* "
    "aten_distributed_optimizations.enable_fusion_regions:* "
    "aten_distributed_optimizations.enable_overlap_scheduling:b "
    "aten_distributed_optimizations.insert_overlap_deps:* "
    "aten_distributed_optimizations.log_final_collectives_estimations:b "
    "aten_distributed_optimizations.max_coll_distance:* "
    "aten_distributed_optimizations.max_compute_pre_fetch:* "
    "aten_distributed_optimizations.max_in_flight_gb:* "
    "aten_distributed_optimizations.max_memory_increase_gb:* "
    "aten_distributed_optimizations.max_memory_increase_ratio:* "
    "aten_distributed_optimizations.prioritize_bucketing_during_scheduling:b "
    "auto_chunker.amplify_ratio_threshold:i auto_chunker.enable:b auto_chunker.num_chunk:* "
    "auto_chunker.output_size_threshold:i autoheuristic_collect:s autoheuristic_log_path:s "
    "autoheuristic_use:s autotune_fallback_to_aten:b autotune_in_subproc:b autotune_local_cache:b "
    "autotune_lookup_table:* autotune_multi_device:b autotune_num_choices_displayed:* "
    "autotune_remote_cache:* b2b_gemm_pass:b batch_fusion:b benchmark_combo_kernel:b "
    "benchmark_epilogue_fusion:b benchmark_fusion:b benchmark_harness:b benchmark_kernel:b "
    "bucket_all_gathers_fx:* bucket_all_gathers_fx_bucket_size_determinator:* bucket_all_reduces_fx:* "
    "bucket_all_reduces_fx_bucket_size_determinator:* bucket_reduce_scatters_fx:* "
    "bucket_reduce_scatters_fx_bucket_size_determinator:* bundle_triton_into_fx_graph_cache:* "
    "bundled_autotune_remote_cache:* bw_outputs_user_visible:b can_inplace_pad_graph_input:b "
    "check_stack_no_cycles_TESTING_ONLY:b collective_benchmark_nruns:i collective_benchmark_timeout:f "
    "combo_kernel_allow_mixed_sizes:i combo_kernel_foreach_dynamic_shapes:b combo_kernel_max_num_args:i "
    "combo_kernel_per_subkernel_blocks:b combo_kernels:b combo_kernels_autotune:i "
    "combo_kernels_pointwise_only:b comment_origin:b compile_threads:* comprehensive_padding:b "
    "compute_all_bounds:b constant_and_index_propagation:b conv_1x1_as_mm:b "
    "coordinate_descent_check_all_directions:b coordinate_descent_search_radius:i "
    "coordinate_descent_tuning:b cpp.cxx:* cpp.descriptive_names:* cpp.dynamic_threads:b "
    "cpp.enable_concat_linear:b cpp.enable_floating_point_contract_flag:s "
    "cpp.enable_grouped_gemm_template:b cpp.enable_kernel_profile:b cpp.enable_loop_tail_vec:b "
    "cpp.enable_tiling_heuristics:b cpp.enable_unsafe_math_opt_flag:b cpp.fallback_scatter_reduce_sum:b "
    "cpp.force_inline_kernel:b cpp.gemm_cache_blocking:n cpp.gemm_max_k_slices:i "
    "cpp.gemm_thread_factors:n cpp.inject_log1p_bug_TESTING_ONLY:* cpp.inject_relu_bug_TESTING_ONLY:* "
    "cpp.max_horizontal_fusion_size:i cpp.min_chunk_size:i cpp.no_redundant_loops:b cpp.simdlen:* "
    "cpp.threads:i cpp.use_constexpr_for_int_array:b cpp.use_decompose_tanh:b "
    "cpp.use_small_dequant_buffer:b cpp.vec_isa_ok:* cpp.weight_prepack:b cpp_cache_precompile_headers:b "
    "cpp_wrapper:b cpp_wrapper_build_separate:b cpu_backend:* cpu_gpu_bw:f cuda.arch:* "
    "cuda.binary_remote_cache_force_write:b cuda.compile_opt_level:s cuda.cuda_cxx:* "
    "cuda.cutlass_backend_min_gemm_size:i cuda.cutlass_dir:s cuda.cutlass_dynamic_cluster_fallback:t "
    "cuda.cutlass_dynamic_cluster_shape:t cuda.cutlass_enabled_ops:s "
    "cuda.cutlass_epilogue_fusion_enabled:b cuda.cutlass_hash_with_compile_cmd:b "
    "cuda.cutlass_instantiation_level:s cuda.cutlass_max_profiling_configs:n "
    "cuda.cutlass_max_profiling_swizzle_options:l cuda.cutlass_op_allowlist_regex:n "
    "cuda.cutlass_op_denylist_regex:n cuda.cutlass_prescreening:b cuda.cutlass_tma_only:b "
    "cuda.enable_caching_codegen:b cuda.enable_cuda_lto:b cuda.enable_debug_info:b "
    "cuda.enable_ptxas_info:b cuda.generate_test_runner:b cuda.nvgemm_max_profiling_configs:* "
    "cuda.upload_to_binary_remote_cache:b cuda.use_binary_remote_cache:b cuda.use_fast_math:b "
    "cuda.version:* cuda_backend:* cudagraph_unsafe_unbacked_ops:* custom_partitioner_fn:* "
    "custom_should_partition_ops:* cutedsl_enable_autotuning:b cutlass.binary_remote_cache_force_write:b "
    "cutlass.compile_opt_level:* cutlass.cutlass_backend_min_gemm_size:i cutlass.cutlass_dir:s "
    "cutlass.cutlass_dynamic_cluster_fallback:* cutlass.cutlass_dynamic_cluster_shape:* "
    "cutlass.cutlass_enabled_ops:s cutlass.cutlass_epilogue_fusion_enabled:b "
    "cutlass.cutlass_hash_with_compile_cmd:b cutlass.cutlass_instantiation_level:s "
    "cutlass.cutlass_max_profiling_configs:* cutlass.cutlass_max_profiling_swizzle_options:* "
    "cutlass.cutlass_op_allowlist_regex:* cutlass.cutlass_op_denylist_regex:* "
    "cutlass.cutlass_prescreening:b cutlass.cutlass_tma_only:b cutlass.enable_caching_codegen:b "
    "cutlass.enable_debug_info:b cutlass.generate_test_runner:b cutlass.upload_to_binary_remote_cache:b "
    "cutlass.use_binary_remote_cache:b cutlass.use_fast_math:b dce:b debug:b debug_fusion:b "
    "debug_index_asserts:b debug_ir_traceback:b decompose_mem_bound_mm:b deterministic:b "
    "developer_warnings:b disable_cpp_codegen:b disable_padding_cpu:b disable_progress:b "
    "disabled_passes:s distributed_max_autotune_gemm:b dynamic_scale_rblock:b "
    "eager_numerics.disable_ftz:b eager_numerics.division_rounding:b efficient_conv_bn_eval_fx_passes:b "
    "emulate_precision_casts:b enable_auto_functionalized_v2:b enable_autograd_for_aot:b "
    "enable_caching_generated_triton_templates:b enable_linear_binary_folding:b enabled_metric_tables:s "
    "epilogue_fusion:b epilogue_fusion_first:b estimate_op_runtime:s "
    "expand_dimension_for_pointwise_nodes:b external_matmul:* fallback_by_default:b "
    "fallback_embedding_bag_byte_unpack:b fallback_random:b file_lock_timeout:i "
    "force_fuse_int_mm_with_mul:b force_layout_optimization:b force_pointwise_cat:b "
    "force_same_precision:b force_shape_pad:b freezing:b freezing_discard_parameters:b fx_graph_cache:b "
    "fx_graph_remote_cache:* fx_passes_numeric_check:* fx_wrapper:b generate_intermediate_hooks:b "
    "global_cache_dir:* graph_partition:b group_fusion:b halide.asserts:b halide.cpu_target:s "
    "halide.debug:b halide.gpu_target:s halide.scan_kernels:b halide.scheduler_cpu:* "
    "halide.scheduler_cuda:* implicit_fallbacks:b inductor_choices_class:* "
    "inductor_default_autotune_rep:i inductor_default_autotune_warmup:i inplace_buffers:b "
    "inplace_padding:b inter_node_bw:i intra_node_bw:i is_nightly_or_source:b is_predispatch:b "
    "joint_custom_post_pass:* joint_custom_pre_pass:* joint_graph_constant_folding:b keep_output_stride:b "
    "kernel_name_max_ops:i layout_opt_default:s layout_optimization:b log_tlparse:b "
    "lookup_table.check_src_hash:b lookup_table.table:* loop_index_inversion_in_fusion:b "
    "loop_ordering_after_fusion:b max_autotune:b max_autotune_allow_flexible_layouts:b "
    "max_autotune_conv_backends:s max_autotune_flex_search_space:* max_autotune_gemm:b "
    "max_autotune_gemm_backends:s max_autotune_gemm_search_space:* max_autotune_pointwise:b "
    "max_autotune_prune_choices_based_on_shared_mem:b max_autotune_report_choices_stats:b "
    "max_autotune_subproc_graceful_timeout_seconds:f max_autotune_subproc_result_timeout_seconds:f "
    "max_autotune_subproc_terminate_timeout_seconds:f max_epilogue_benchmarked_choices:i "
    "max_fusion_buffer_group_pairwise_attempts:i max_fusion_size:i max_fusion_unique_io_buffers:* "
    "max_pointwise_cat_inputs:i memory_planning:b memory_pool:* min_num_split:i mixed_mm_choice:* "
    "multi_kernel_hints:* nan_asserts:b non_blocking_remote_cache_write:b nvgemm_max_profiling_configs:* "
    "online_softmax:b optimize_scatter_upon_const_tensor:b pad_channels_last:b pad_dynamic_shapes:b "
    "pad_outputs:b padding_alignment_bytes:i padding_stride_threshold:i partitioned_scatter_enabled:b "
    "partitioned_scatter_max_partitions:i partitioned_scatter_memory_budget:f "
    "partitioned_scatter_min_partitions:i pattern_matcher:b permute_fusion:b pick_loop_orders:b "
    "pipeline_max_autotune_gemm:b post_grad_custom_post_pass:* post_grad_custom_pre_pass:* "
    "post_grad_fusion_options:* pre_grad_custom_pass:* pre_grad_fusion_options:* "
    "precompilation_timeout_seconds:i profile_bandwidth:b profile_bandwidth_output:* "
    "profile_bandwidth_regex:s profile_bandwidth_with_do_bench_using_profiling:b "
    "profiler_mark_wrapper_call:b prologue_fusion:b quiesce_async_compile_pool:b "
    "quiesce_async_compile_time:i realize_acc_reads_size_threshold:* realize_acc_reads_threshold:i "
    "realize_opcount_threshold:i realize_reads_threshold:i remote_gemm_autotune_cache:b "
    "remove_pre_grad_passes:* reorder_for_compute_comm_overlap:b "
    "reorder_for_compute_comm_overlap_passes:* reorder_for_locality:b reorder_for_peak_memory:b "
    "reorder_for_peak_memory_debug:b reorder_prefetch_limit:* rocm.arch:* rocm.ck_dir:n "
    "rocm.ck_max_profiling_configs:* rocm.ck_supported_arch:* rocm.ck_tile_max_profiling_configs:* "
    "rocm.compile_opt_level:* rocm.contiguous_threshold:i rocm.flush_denormals:b "
    "rocm.generate_test_runner:b rocm.is_debug:b rocm.kBatch_sweep:* rocm.n_max_profiling_configs:* "
    "rocm.print_kernel_resource_usage:b rocm.rocm_home:* rocm.save_temps:b rocm.split_k_threshold:i "
    "rocm.use_fast_math:b rocm.use_preselected_instances:b run_jit_post_compile_hook:b "
    "runtime_estimations_mms_benchmark:b runtime_triton_nan_asserts:b save_args:b scalar_asserts:b "
    "score_fusion_memory_threshold:i search_autotune_cache:b selective_decompose:b shape_padding:b "
    "size_asserts:b size_threshold_for_succ_based_strategy:i sleep_sec_TESTING_ONLY:* "
    "small_memory_access_threshold:i split_cat_fx_passes:b split_reductions:b "
    "static_launch_user_defined_triton_kernels:b static_weight_shapes:b strict_static_cuda_launcher:b "
    "test_configs.assume_bucketing_reduces_latency:b test_configs.autotune_choice_desc_regex:* "
    "test_configs.autotune_choice_name_regex:* test_configs.bisect_keep_custom_backend_for_inductor:b "
    "test_configs.bisect_pre_grad_graph:b test_configs.distort_benchmarking_result:s "
    "test_configs.force_extern_kernel_in_multi_template:b test_configs.force_filter_reduction_configs:b "
    "test_configs.graphsafe_rng_func_ignores_fallback_random:b test_configs.max_mm_configs:* "
    "test_configs.runtime_triton_dtype_assert:b test_configs.runtime_triton_shape_assert:b "
    "test_configs.static_cpp_dtype_assert:b test_configs.track_memory_lifecycle:* "
    "test_configs.use_libtorch:b torchinductor_worker_logpath:s tpu_backend:* trace.compile_profile:b "
    "trace.debug_dir:* trace.debug_log:b trace.dot_graph_shape:n trace.draw_orig_fx_graph:b "
    "trace.enabled:b trace.fx_graph:b trace.fx_graph_transformed:b trace.graph_diagram:b trace.info_log:b "
    "trace.ir_post_fusion:b trace.ir_pre_fusion:b trace.log_autotuning_results:b "
    "trace.log_url_for_graph_xform:n trace.output_code:b trace.provenance_tracking_level:i "
    "trace.save_real_tensors:b trace.upload_tar:* triton.autotune_at_compile_time:* "
    "triton.autotune_cublasLt:b triton.autotune_pointwise:b triton.autotune_with_sample_inputs:b "
    "triton.coalesce_tiling_analysis:b triton.codegen_upcast_to_fp32:b triton.cooperative_reductions:b "
    "triton.cudagraph_capture_sizes:* triton.cudagraph_dynamic_shape_warn_limit:* "
    "triton.cudagraph_or_error:b triton.cudagraph_skip_dynamic_graphs:b "
    "triton.cudagraph_support_input_mutation:b triton.cudagraph_trees:b "
    "triton.cudagraph_trees_history_recording:b triton.cudagraph_trees_objgraph:b "
    "triton.cudagraph_unexpected_rerecord_limit:i triton.cudagraphs:b triton.debug_dump_kernel_inputs:* "
    "triton.debug_sync_graph:b triton.debug_sync_kernel:b triton.decompose_k_threshold:i "
    "triton.dense_indexing:b triton.descriptive_names:* "
    "triton.disallow_failing_autotune_kernels_TESTING_ONLY:b triton.divisible_by_16:b triton.enable_pdl:b "
    "triton.enable_persistent_tma_matmul:b triton.enable_template_tma_store:b "
    "triton.enable_tlx_templates:b triton.fast_path_cudagraph_asserts:b "
    "triton.force_cooperative_reductions:b triton.force_cudagraph_sync:b triton.force_cudagraphs_warmup:b "
    "triton.inject_relu_bug_TESTING_ONLY:* triton.max_kernel_dump_occurrences:i triton.max_tiles:* "
    "triton.min_split_scan_rblock:i triton.mix_order_reduction:b "
    "triton.mix_order_reduction_allow_multi_stages:b triton.mix_order_reduction_autotune_split_size:b "
    "triton.mix_order_reduction_initial_xblock:i triton.mix_order_reduction_non_strict_mode:b "
    "triton.mix_order_reduction_split_size:* triton.multi_kernel:* triton.native_matmul:b "
    "triton.num_decompose_k_splits:i triton.persistent_reductions:b triton.prefer_nd_tiling:b "
    "triton.proton_group_by_sm:b triton.proton_output_dir:* triton.proton_per_cta_occupancy:b "
    "triton.proton_profiling:b triton.proton_split_invocations:b "
    "triton.reorder_for_reducing_graph_partitions:b triton.skip_cudagraph_warmup:b triton.skip_l1_cache:b "
    "triton.slow_path_cudagraph_asserts:b triton.spill_threshold:i triton.store_cubin:b "
    "triton.tile_reductions:b triton.tiling_prevents_pointwise_fusion:b "
    "triton.tiling_prevents_reduction_fusion:b triton.transpose_discontiguous_tensor_descriptor:b "
    "triton.unique_kernel_names:b triton.unique_user_kernel_names:b triton.use_block_ptr:b "
    "triton.use_tensor_descriptor:b triton_disable_device_detection:b "
    "triton_kernel_default_layout_constraint:* unbacked_symint_fallback:i unroll_reductions_threshold:i "
    "unsafe_ignore_unsupported_triton_autotune_args:b unsafe_marked_cacheable_functions:* "
    "unsafe_skip_cache_dynamic_shape_guards:b use_dce:b use_experimental_benchmarker:b use_fast_math:b "
    "use_joint_graph_passes:b use_mixed_mm:b use_post_grad_passes:b use_pre_grad_passes:b "
    "use_static_cuda_launcher:b verbose_progress:b warn_mix_layout:b worker_log_path:n "
    "worker_start_method:s worker_suppress_logging:b wrap_inductor_compiled_regions:b "
    "write_are_deterministic_algorithms_enabled:b xpu.arch:* xpu.binary_remote_cache_force_write:b "
    "xpu.compile_opt_level:s xpu.cutlass_backend_min_gemm_size:i xpu.cutlass_dir:s "
    "xpu.cutlass_dynamic_cluster_fallback:t xpu.cutlass_dynamic_cluster_shape:t xpu.cutlass_enabled_ops:s "
    "xpu.cutlass_epilogue_fusion_enabled:b xpu.cutlass_hash_with_compile_cmd:b "
    "xpu.cutlass_instantiation_level:s xpu.cutlass_max_profiling_configs:n "
    "xpu.cutlass_max_profiling_swizzle_options:l xpu.cutlass_op_allowlist_regex:n "
    "xpu.cutlass_op_denylist_regex:n xpu.cutlass_prescreening:b xpu.cutlass_tma_only:b "
    "xpu.enable_caching_codegen:b xpu.enable_debug_info:b xpu.generate_test_runner:b "
    "xpu.upload_to_binary_remote_cache:b xpu.use_binary_remote_cache:b xpu.use_fast_math:b xpu.version:* "
    "xpu_backend:* ";

const std::map<std::string, char>& options() {
  static const std::map<std::string, char> table = [] {
    std::map<std::string, char> t;
    std::istringstream words(kOptions);
    std::string w;
    while (words >> w) t[w.substr(0, w.rfind(':'))] = w.back();
    return t;
  }();
  return table;
}

const char* typeName(char c) {
  switch (c) {
    case 'b': return "bool";
    case 'i': return "int";
    case 'f': return "float";
    case 's': return "str";
    case 'n': return "NoneType";
    case 't': return "tuple";
    default: return "list";
  }
}

// isinstance(v, type) for the declared type (a bool is an int, as in Python).
bool instanceOf(const py::Value& v, char c) {
  switch (c) {
    case 'b': return v->kind == py::VK::Bool;
    case 'i': return v->kind == py::VK::Int || v->kind == py::VK::Bool;
    case 'f': return v->kind == py::VK::Float;
    case 's': return v->kind == py::VK::Str;
    case 'n': return py::isNone(v);
    case 't': return v->kind == py::VK::Tuple;
    case 'l': return v->kind == py::VK::List;
    default: return true;
  }
}

}  // namespace

void checkInductorOptions(py::Interpreter& in, const py::Value& opts) {
  if (!opts || opts->kind != py::VK::Dict) return;
  const auto& table = options();
  for (const auto& [k, v] : py::as<py::DictObj>(opts)->items) {
    const std::string key = in.str(k);
    std::string name = key;
    for (char& c : name)
      if (c == '-') c = '_';
    auto it = table.find(name);
    if (it == table.end()) {
      std::string known;
      for (const auto& [n, t] : table) known += (known.empty() ? "'" : ", '") + n + "'";
      in.raise("RuntimeError", "Unexpected optimization option " + key + ", known options are [" + known + "]");
    }
    if (!instanceOf(v, it->second))
      in.raise("RuntimeError", "Unexpected type of attr " + key + ", got " + py::typeName(v) + " should be " + typeName(it->second));
  }
}

}  // namespace kiln::capture
