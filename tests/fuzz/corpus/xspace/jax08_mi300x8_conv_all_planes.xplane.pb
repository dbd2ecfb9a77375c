
/host:metadata
§/device:GPU:0äStream #17(Kernel)’Õ7"»˝ˆÕÄ§Ÿ""	8
"»∑©£Ä–˜"_"	8
"Ëªˇá„Ä˝Ë"Ë"	8
"ê≠õì‰¿À∫"¶"	8
äStream #15(Kernel)’Õ7"àΩØ◊Ä…£""	8
"»òõºÄ≤Å"A"	8
"®‚∫˜‚¿Ä”"Â"	8
"êÙÎ®‰Ä¢≥"≥"	8
""__amd_rocclr_copyBuffer.kd*compute_cap_major*compute_cap_minor*correlation_id*		kernel_details*F
B
> grid:16,1,1 block:512,1,1 private_mem:0 group_mem:0 occ_pct:0*device_vendor*
clock_rate*
core_count*memory_bandwidth*memory_size2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
Ê/device:GPU:1ÉStream #19(Kernel)’Õ7"8∏ÃÿíbÄ¸§"´"	8"8"8"8"8" "8∏†´òbÄÁ®"¨"	8"8"8"8"8" "8∏Ã˜€bÄîã"Ø"	8"8"8"8"8" "9∏Ï™ˇbÄÉ∆è"≤"	8"8"8"8"8" "#input_transpose_fusion_1.kd"áÇ˝Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd" loop_transpose_fusion.kd"Im3d2Col.kd*	x*
XlaModule:*compute_cap_major* input_transpose_fusion.1*name*compute_cap_minor*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*1-)jit(forward_3d_conv)/conv_general_dilated*
kernel*
hlo_op*device_vendor*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*loop_transpose_fusion*correlation_id*
clock_rate*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*		kernel_details*
core_count*
hlo_module*	tf_op*cudnn-conv.1*jit_forward_3d_conv*memory_bandwidth*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*
program_id*memory_size2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
Ê/device:GPU:2ÉStream #22(Kernel)’Õ7"8®‹–sÄã†"Ω"	8"8"8"8"8" "8Ë◊ÑısÄ¡ã"æ"	8"8"8"8"8" "8®èµ«t¿Æó"¡"	8
"8"8"8"8" "9®À∏ÈtÄÇÛé"ƒ"	8"8"8"8"8" "Im3d2Col.kd" loop_transpose_fusion.kd"#input_transpose_fusion_1.kd"áÇ˝Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd*	x*jit_forward_3d_conv*
hlo_op* input_transpose_fusion.1*
program_id*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*device_vendor*
kernel*correlation_id*
clock_rate*loop_transpose_fusion*		kernel_details*
core_count*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*H
D
@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*memory_bandwidth*	tf_op*memory_size*
XlaModule:*compute_cap_major*cudnn-conv.1*name*compute_cap_minor*
hlo_module*1-)jit(forward_3d_conv)/conv_general_dilated2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
Í/device:GPU:3áStream #25(Kernel)’Õ7"9†úñá¢¿“ù"·"	8"8"8"8"8" "9‡ßâë¢Ä¬ﬁ"‚"	8"8"8"8"8" "9‡Úè⁄¢Äÿû"Â"	8
"8"8"8"8" ":‡ÔÄâ£Ä¢ûã"Ë"	8"8"8"8"8" " loop_transpose_fusion.kd"Im3d2Col.kd"#input_transpose_fusion_1.kd"áÇ˝Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd*
XlaModule:* input_transpose_fusion.1*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*name*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*
kernel*memory_bandwidth*1-)jit(forward_3d_conv)/conv_general_dilated*cudnn-conv.1*loop_transpose_fusion*memory_size*
hlo_op*
hlo_module*compute_cap_major*correlation_id*jit_forward_3d_conv*compute_cap_minor*		kernel_details*
program_id*H
D
@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*device_vendor*	tf_op*
clock_rate*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*
core_count*	x2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
Í/device:GPU:4áStream #28(Kernel)’Õ7"9»ìØï∞¿á∂"ó"	8
"8"8"8"8" "9»˚õ∞ÄË˚"ò"	8"8"8"8"8" "9»πßÀ∞¿ê°"õ"	8"8"8"8"8" ":à«ÑÍ∞¿â∏å"û"	8"8"8"8"8" "áÇ˝Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd" loop_transpose_fusion.kd"Im3d2Col.kd"#input_transpose_fusion_1.kd*
core_count*		kernel_details*
clock_rate*correlation_id*device_vendor*cudnn-conv.1*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*
hlo_op*1-)jit(forward_3d_conv)/conv_general_dilated* input_transpose_fusion.1*
kernel*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*	x*compute_cap_minor*name*
program_id*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*compute_cap_major*
XlaModule:*jit_forward_3d_conv*memory_size*	tf_op*
hlo_module*memory_bandwidth*H
D
@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*loop_transpose_fusion2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
Í/device:GPU:5áStream #31(Kernel)’Õ7"9ËÕ…¬´Ä±Ω"Ö"	8"8"8"8"8" "9®æŒ…´Äí∏"Ü"	8"8"8"8"8" "9ËΩ«¸´ÄÔ¿"â"	8
"8"8"8"8" ":®õ´û¨Äõ ã"å"	8"8"8"8"8" "#input_transpose_fusion_1.kd"áÇ˝Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd"Im3d2Col.kd" loop_transpose_fusion.kd*		kernel_details*
core_count*correlation_id*
clock_rate*	tf_op*	x*H
D
@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*memory_size*
hlo_module*memory_bandwidth*cudnn-conv.1*name*compute_cap_minor*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*
program_id*
XlaModule:*compute_cap_major* input_transpose_fusion.1*jit_forward_3d_conv*
hlo_op*device_vendor*loop_transpose_fusion*1-)jit(forward_3d_conv)/conv_general_dilated*
kernel2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
Í/device:GPU:6á"Stream #34(Kernel)’Õ7"9–ßúËÄ¿‹Í"œ"	8
"8"8"8"8" "9êÑáÏÄÄ≤ê"–"	8"8"8"8"8" "9ê–´ùÅ¿„Ø"”"	8"8"8"8"8" ":ê∞¶æÅÄΩåé"÷"	8"8"8"8"8" "áÇ˝Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd" loop_transpose_fusion.kd"#input_transpose_fusion_1.kd"Im3d2Col.kd*	tf_op*memory_size*loop_transpose_fusion*H
D
@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*memory_bandwidth* input_transpose_fusion.1*
program_id*name*compute_cap_minor*	x*jit_forward_3d_conv*
XlaModule:*compute_cap_major*cudnn-conv.1*1-)jit(forward_3d_conv)/conv_general_dilated*
hlo_op*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*
kernel*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*device_vendor*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*		kernel_details*
core_count*correlation_id*
clock_rate*
hlo_module2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
Í/device:GPU:7á%Stream #37(Kernel)’Õ7"9∞íÔÀ≥¿á∂"©"	8"8"8"8"8" "9∞“ò”≥¿îœ"™"	8"8"8"8"8" "9∞â–Ä¥¿˘˛"≠"	8"8"8"8"8" ":∞¢æü¥Äû√ç"∞"	8"8"8"8"8" "Im3d2Col.kd"áÇ˝Cijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd" loop_transpose_fusion.kd"#input_transpose_fusion_1.kd*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*name*	x*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*
XlaModule:*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0* input_transpose_fusion.1*memory_size*
hlo_op*
hlo_module*loop_transpose_fusion*memory_bandwidth*1-)jit(forward_3d_conv)/conv_general_dilated*
kernel*compute_cap_minor*		kernel_details*
program_id*compute_cap_major*correlation_id*jit_forward_3d_conv*device_vendor*	tf_op*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*
core_count*cudnn-conv.1*
clock_rate2*AMD2 †ñÄ2 ∞2	ÄÄ†õæM2	ÄÄÄ¯ˇ2 	2 
‚	/host:CPUü«Host Threads/583’Õ7";XàÆª∂•ì‹"ùÙ"Û"8" 8)""8*"$8"% ";Xà ¿Õ•¿±ü"ùÙ"Ù"8" 8'""8("$8"% ";WËÏù˚•—å"ùÙ"˜"8" 8!""8#"$8"% ";Wò¨˙ô¶¿÷È"ùÙ"˙"8" 8!""8#"$8"% ZHost Threads/583õ Host Threads/586’Õ7":X¯ƒ¸ÚaÄﬂ∂"ûÙ"´"8" 8)""8*"$8"% ":X¯∆»ëb¸◊"ûÙ"¨"8" 8'""8("$8"% ":Wòøè“b‡ÏÈ"ûÙ"Ø"8" 8!""8#"$8"% ":WÿËû˘b–ÑŒ"ûÙ"≤"8" 8!""8#"$8"% ZHost Threads/586"XXhipModuleLaunchKernel" WWhipExtModuleLaunchKernel*  name***loop_transpose_fusion*correlation_id*##cudnn-conv.1*jit_forward_3d_conv*	device_id*"
"hlo_op*%%
program_id*$$
hlo_module*
XlaModule:*	''x*	tf_op*)
)kernel* ((input_transpose_fusion.1*1!-!)jit(forward_3d_conv)/conv_general_dilated
eTask Environment*profile_stop_time*profile_start_time2ûÆô»èõ˛ 2û∑∆ñêõ˛ "tw003