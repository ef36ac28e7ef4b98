/* SPDX-License-Identifier: BSD-3-Clause */
#include "roce_log.h"

RTE_LOG_REGISTER(roce_logtype_wire, lib.roce.wire, NOTICE);
RTE_LOG_REGISTER(roce_logtype_verbs, lib.roce.verbs, NOTICE);
RTE_LOG_REGISTER(roce_logtype_qp, lib.roce.qp, NOTICE);
RTE_LOG_REGISTER(roce_logtype_req, lib.roce.req, NOTICE);
RTE_LOG_REGISTER(roce_logtype_resp, lib.roce.resp, NOTICE);
RTE_LOG_REGISTER(roce_logtype_comp, lib.roce.comp, NOTICE);
RTE_LOG_REGISTER(roce_logtype_cm, lib.roce.cm, NOTICE);
