# The HTML report's JavaScript (`appell simulate --report`, `appell report`).
#
# three.js and uPlot come from npm at configure time, into ${CMAKE_BINARY_DIR}/js (never
# into the source tree), together with playwright-core for the browser tests.  Their files
# and the report's own template (cli/report/) are embedded into the program as string
# literals (a generated report_assets.cpp), so `appell` alone writes a complete, offline
# report.  Without npm or the packages the program is built without the report feature and
# says so when asked for one.
option(APPELL_REPORT "Build the HTML report (needs npm at configure time)" ON)

set(APPELL_JS_DIR ${CMAKE_BINARY_DIR}/js)
set(APPELL_JS_PACKAGES three@0.170.0 uplot@1.6.32 playwright-core@1.60.0)
set(APPELL_THREE_JS ${APPELL_JS_DIR}/node_modules/three/build/three.module.min.js)
set(APPELL_UPLOT_JS ${APPELL_JS_DIR}/node_modules/uplot/dist/uPlot.iife.min.js)
set(APPELL_UPLOT_CSS ${APPELL_JS_DIR}/node_modules/uplot/dist/uPlot.min.css)

if(APPELL_REPORT AND NOT EXISTS ${APPELL_JS_DIR}/node_modules/playwright-core/package.json)
  find_program(APPELL_NPM npm)
  if(APPELL_NPM)
    message(STATUS "report: npm install ${APPELL_JS_PACKAGES} into ${APPELL_JS_DIR}")
    file(MAKE_DIRECTORY ${APPELL_JS_DIR})
    execute_process(
      COMMAND ${APPELL_NPM} install --no-audit --no-fund --no-save --prefix ${APPELL_JS_DIR}
              ${APPELL_JS_PACKAGES}
      RESULT_VARIABLE npm_rc OUTPUT_QUIET ERROR_VARIABLE npm_err TIMEOUT 600)
    if(npm_rc)
      message(STATUS "report: npm install failed (${npm_rc}): ${npm_err}")
    endif()
  endif()
endif()

# the page's script comes in parts, joined in one <script> by cli/report_html.cpp (its order)
set(APPELL_REPORT_SOURCES
  ${PROJECT_SOURCE_DIR}/cli/report/report.html
  ${PROJECT_SOURCE_DIR}/cli/report/report.css
  ${PROJECT_SOURCE_DIR}/cli/report/data.js
  ${PROJECT_SOURCE_DIR}/cli/report/geometry.js
  ${PROJECT_SOURCE_DIR}/cli/report/scene.js
  ${PROJECT_SOURCE_DIR}/cli/report/contacts.js
  ${PROJECT_SOURCE_DIR}/cli/report/charts.js
  ${PROJECT_SOURCE_DIR}/cli/report/report.js)
set(assets_cpp ${CMAKE_BINARY_DIR}/generated/report_assets.cpp)
if(APPELL_REPORT AND EXISTS ${APPELL_THREE_JS} AND EXISTS ${APPELL_UPLOT_JS})
  set(APPELL_HAVE_REPORT ON)
  set(asset_files ${APPELL_THREE_JS} ${APPELL_UPLOT_JS} ${APPELL_UPLOT_CSS} ${APPELL_REPORT_SOURCES})
  message(STATUS "report: enabled (three.js, uPlot in ${APPELL_JS_DIR})")
else()
  set(APPELL_HAVE_REPORT OFF)
  set(asset_files "")
  message(STATUS "report: disabled (npm or the packages three, uplot are not available)")
endif()
string(REPLACE ";" "|" asset_list "${asset_files}")  # one command-line argument
add_custom_command(
  OUTPUT ${assets_cpp}
  COMMAND ${CMAKE_COMMAND} -DOUT=${assets_cpp} "-DFILES=${asset_list}"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
  DEPENDS ${asset_files} ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
  COMMENT "embedding the report's JavaScript" VERBATIM)
target_sources(appell_cli PRIVATE ${assets_cpp})
if(APPELL_HAVE_REPORT)
  target_compile_definitions(appell_cli PRIVATE APPELL_HAVE_REPORT=1)
endif()
